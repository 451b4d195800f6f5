package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device that floods PINGREQ and gets a downlink burst but never reads: the gateway stops reading it, drops its QoS
 * 0 downlink, and closes it as a slow consumer once it stays unwritable past {@code mqtt.write-stall-timeout}, while
 * the gateway's direct memory stays under a stated bound (without the rule, every PINGRESP and downlink PUBLISH piles
 * up in the outbound buffer for as long as the device keeps sending).
 */
class SlowConsumerIT {
    /** Growth of the gateway's direct memory the whole flood may cause: far below what an unbounded buffer reaches. */
    private static final long DIRECT_MEMORY_BOUND = 32L << 20;

    @TempDir
    Path dir;

    @Test
    void deviceThatNeverReadsIsClosedAsSlowConsumerWithDirectMemoryBounded() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).with("mqtt.write-stall-timeout", "2s")
                .with("mqtt.max-qos", "1").start()) {
            RawMqttConnection bystander = RawMqttConnection.tcp(gateway.tcpPort());
            assertEquals(0, bystander.connect("bystander", 600));
            RawMqttConnection slow = RawMqttConnection.tcpWithReceiveBuffer(gateway.tcpPort(), 4096);
            assertEquals(0, slow.connect("slow", 600));
            slow.send(DownlinkIT.subscribe(1, "devices/slow/commands", 1));
            byte[] suback = slow.readPacket();
            assertEquals(0x90, suback[0] & 0xFF);

            long before = directMemoryUsed();
            long[] peak = {before};
            AtomicBoolean stop = new AtomicBoolean();
            // 16 PINGREQs every 2 ms: a flood, yet one the event loop gets through under the PARANOID leak detector
            byte[] pings = new byte[32];
            for (int i = 0; i < pings.length; i += 2) {
                pings[i] = (byte) 0xC0;
            }
            Thread flooder = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        slow.send(pings);
                        Thread.sleep(2);
                    }
                } catch (IOException | InterruptedException closedByTheGateway) {
                    // expected: the gateway closed the connection
                }
            }, "ping-flooder");
            flooder.setDaemon(true);
            flooder.start();
            byte[] payload = new byte[8192];
            Arrays.fill(payload, (byte) 'x');
            double slowConsumerBefore = gateway.metrics().disconnects(DisconnectReason.SLOW_CONSUMER);
            double droppedBefore = gateway.metrics().downlinkOutcomes(Outcome.NOT_WRITABLE);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            try {
                while (gateway.metrics().disconnects(DisconnectReason.SLOW_CONSUMER) <= slowConsumerBefore) {
                    assertTrue(System.nanoTime() < deadline,
                            () -> "the device that never reads is closed (slow_consumer); " + state(gateway));
                    // paced by the QoS 0 answers, so the test never floods the event loop's task queue itself
                    CompletableFuture<?>[] qos0 = new CompletableFuture<?>[10];
                    for (int i = 0; i < 10; i++) {
                        gateway.downlink().deliver(new DownlinkMessage("slow", "devices/slow/commands", 1, false,
                                payload));
                        qos0[i] = gateway.downlink().deliver(new DownlinkMessage("slow", "devices/slow/commands", 0,
                                false, payload)).toCompletableFuture();
                    }
                    CompletableFuture.allOf(qos0).get(30, TimeUnit.SECONDS);
                    peak[0] = Math.max(peak[0], directMemoryUsed());
                    // checked while the flood runs: without the rule the outbound buffer grows past it within seconds
                    assertTrue(peak[0] - before < DIRECT_MEMORY_BOUND, "direct memory grew by " + (peak[0] - before)
                            + " bytes while the device did not read");
                    Thread.sleep(5);
                }
            } finally {
                stop.set(true);
                slow.close();
            }
            flooder.join(10_000);
            long growth = peak[0] - before;
            System.out.printf(Locale.ROOT, "slow consumer: direct memory before %d, peak %d, growth %d bytes%n", before,
                    peak[0],
                    growth);
            assertTrue(growth < DIRECT_MEMORY_BOUND, "direct memory grew by " + growth + " bytes");
            assertTrue(gateway.metrics().downlinkOutcomes(Outcome.NOT_WRITABLE) > droppedBefore,
                    "QoS 0 downlink to the unwritable channel is dropped and counted");
            // the other connection is untouched
            bystander.send(new byte[] {(byte) 0xC0, 0});
            assertArrayEquals(new byte[] {(byte) 0xD0, 0}, bystander.readPacket());
            bystander.close();
        }
    }

    private static String state(Gateway gateway) {
        StringBuilder b = new StringBuilder("unwritable channels ").append(gateway.metrics().unwritableChannels());
        for (Outcome o : Outcome.values()) {
            b.append(", ").append(o).append(' ').append(gateway.metrics().downlinkOutcomes(o));
        }
        return b.toString();
    }

    private static long directMemoryUsed() {
        long netty = PlatformDependent.usedDirectMemory();
        return Math.max(netty, PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory());
    }
}
