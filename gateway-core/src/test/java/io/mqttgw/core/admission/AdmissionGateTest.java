package io.mqttgw.core.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdmissionGateTest {

    @Test
    void passesAdmittedSocketsOnAndClosesTheRestAfterADelay() {
        AdmissionControl control = new AdmissionControl(0, 2, new SimpleMeterRegistry());
        EmbeddedChannel server = new EmbeddedChannel(new AdmissionGate(control, true, 1000));
        EmbeddedChannel first = new EmbeddedChannel();
        EmbeddedChannel second = new EmbeddedChannel();
        EmbeddedChannel third = new EmbeddedChannel();
        server.writeInbound(first, second, third);
        assertSame(first, server.readInbound());
        assertSame(second, server.readInbound());
        assertNull(server.readInbound(), "the third would pass the budget of 2 handshakes");
        assertEquals(2, control.handshakesInProgress());
        assertEquals(1.0, control.rejections(AdmissionControl.Rejection.HANDSHAKES));
        assertTrue(third.isOpen(), "not closed at once: retries would come back in lockstep");
        server.advanceTimeBy(1001, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        assertFalse(third.isOpen());
        control.handshakeEnded();
        server.writeInbound(third);
        assertSame(third, server.readInbound(), "a freed slot admits the next one");
        server.finishAndReleaseAll();
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
    }

    @Test
    void limitsTheConnectionRate() {
        AdmissionControl control = new AdmissionControl(5, 0, new SimpleMeterRegistry());
        int admitted = 0;
        for (int i = 0; i < 50; i++) {
            if (control.admit(false) == null) {
                admitted++;
            }
        }
        assertTrue(admitted >= 5 && admitted <= 6, "a burst of one second at 5/s: " + admitted);
        assertEquals(50 - admitted, control.rejections(AdmissionControl.Rejection.RATE));
    }
}
