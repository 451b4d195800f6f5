package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.pipeline.HandlerNames;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.Channel;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an established, idle mutual-TLS device costs in pipeline entries and per-channel objects, checked
 * on a real gateway over real TLS so a change that brings an entry back fails here and not only in a 19,000-device
 * memory run: after CONNECT the pipeline is the socket entry, TLS, the packet decoder, the outbound entry and the
 * session; every device channel shares one read-size policy.
 */
class IdleConnectionShapeIT {
    @TempDir
    Path dir;

    @Test
    void anEstablishedDeviceKeepsFivePipelineEntriesAndASharedReadPolicy() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).start()) {
            Mqtt3BlockingClient first = TestDevices.mutualTls(pki, gateway.tlsPort(), "shape-1", pki.device("shape-1"))
                    .buildBlocking();
            Mqtt3BlockingClient second = TestDevices.mutualTls(pki, gateway.tlsPort(), "shape-2",
                    pki.device("shape-2")).buildBlocking();
            first.connect();
            second.connect();
            try {
                Channel a = gateway.registry().find("shape-1");
                Channel b = gateway.registry().find("shape-2");
                assertNotNull(a);
                assertNotNull(b);
                List<String> names = a.eventLoop().submit(() -> a.pipeline().names().stream()
                        .filter(n -> !n.startsWith("DefaultChannelPipeline$")).toList()).get(15, TimeUnit.SECONDS);
                assertEquals(List.of(HandlerNames.SOCKET, HandlerNames.TLS, HandlerNames.PACKET_DECODER,
                        HandlerNames.OUTBOUND, HandlerNames.SESSION), names);
                RecvByteBufAllocator reads = a.config().getRecvByteBufAllocator();
                assertInstanceOf(FixedRecvByteBufAllocator.class, reads, "no adaptive allocator per channel");
                assertSame(reads, b.config().getRecvByteBufAllocator(), "one read policy for every device");
            } finally {
                first.disconnect();
                second.disconnect();
            }
        }
    }
}
