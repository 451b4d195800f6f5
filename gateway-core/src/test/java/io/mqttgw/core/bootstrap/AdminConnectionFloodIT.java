package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.AdminAndShutdownIT.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestGateway;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stranger opens many sockets to the admin port and sends nothing: the listener keeps at most
 * {@code admin.max-connections} (closing the oldest), closes what stays silent for {@code admin.idle-timeout}, and
 * the balancer's {@code /health/ready} keeps answering throughout.
 */
class AdminConnectionFloodIT {
    private static final int MAX = 8;
    private static final int FLOOD = 40;

    @TempDir
    Path dir;

    /** True when the gateway closed the socket within {@code millis} (EOF or reset). */
    private static boolean closedWithin(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        InputStream in = s.getInputStream();
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private double closed(Gateway gateway, String reason) {
        var counter = gateway.metrics().registry().find("mqttgw.admin.connections.closed").tag("reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void idleSocketsFloodingTheAdminPortAreClosedAndHealthReadyStillAnswers() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).with("admin.max-connections", Integer.toString(MAX))
                .with("admin.idle-timeout", "2s").start()) {
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < FLOOD; i++) {
                    Socket s = new Socket();
                    s.connect(new InetSocketAddress("127.0.0.1", gateway.adminPort()), 15_000);
                    flood.add(s);
                }
                // the balancer's check gets through the flood
                assertEquals(200, get(gateway.adminPort(), "/health/ready").statusCode());

                // the oldest were pushed out at once, long before the idle timeout
                for (int i = 0; i < FLOOD - MAX; i++) {
                    assertTrue(closedWithin(flood.get(i), 1_000), "flood socket " + i + " closed for the limit");
                }
                assertTrue(closed(gateway, "limit") >= FLOOD - MAX, "counted: " + closed(gateway, "limit"));

                // what is left is closed when silent past the idle timeout
                for (int i = FLOOD - MAX + 1; i < FLOOD; i++) {
                    assertTrue(closedWithin(flood.get(i), 15_000), "flood socket " + i + " closed when idle");
                }
                assertTrue(closed(gateway, "idle") >= 1, "counted: " + closed(gateway, "idle"));
                assertEquals(200, get(gateway.adminPort(), "/health/ready").statusCode());
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
        }
    }
}
