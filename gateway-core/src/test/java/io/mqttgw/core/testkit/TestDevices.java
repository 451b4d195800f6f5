package io.mqttgw.core.testkit;

import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import com.hivemq.client.mqtt.mqtt3.Mqtt3ClientBuilder;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.Mqtt5ClientBuilder;
import io.netty.pkitesting.X509Bundle;
import java.util.concurrent.TimeUnit;

/**
 * Devices as the HiveMQ MQTT client (3.1.1 or 5.0), over mutual TLS to a gateway on 127.0.0.1, trusting the test CA.
 */
public final class TestDevices {
    private TestDevices() {
    }

    /**
     * A client builder for {@code clientId} presenting {@code certificate} (none when null); call
     * {@code buildBlocking()} or {@code buildAsync()} on it.
     */
    public static Mqtt3ClientBuilder mutualTls(TestPki pki, int port, String clientId, X509Bundle certificate) {
        var builder = Mqtt3Client.builder().identifier(clientId).serverHost("127.0.0.1").serverPort(port);
        var ssl = builder.sslConfig().trustManagerFactory(pki.trust()).handshakeTimeout(5, TimeUnit.SECONDS);
        if (certificate != null) {
            ssl = ssl.keyManagerFactory(TestPki.keys(certificate));
        }
        return ssl.applySslConfig();
    }

    /** An MQTT 5.0 client builder for {@code clientId} presenting {@code certificate} (none when null). */
    public static Mqtt5ClientBuilder mutualTls5(TestPki pki, int port, String clientId, X509Bundle certificate) {
        var builder = Mqtt5Client.builder().identifier(clientId).serverHost("127.0.0.1").serverPort(port);
        var ssl = builder.sslConfig().trustManagerFactory(pki.trust()).handshakeTimeout(5, TimeUnit.SECONDS);
        if (certificate != null) {
            ssl = ssl.keyManagerFactory(TestPki.keys(certificate));
        }
        return ssl.applySslConfig();
    }

    /** An MQTT 5.0 client whose certificate names {@code clientId}. */
    public static Mqtt5ClientBuilder mutualTls5(TestPki pki, int port, String clientId) {
        return mutualTls5(pki, port, clientId, pki.device(clientId));
    }

    /** A client whose certificate names {@code clientId}. */
    public static Mqtt3ClientBuilder mutualTls(TestPki pki, int port, String clientId) {
        return mutualTls(pki, port, clientId, pki.device(clientId));
    }
}
