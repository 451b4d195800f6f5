package io.mqttgw.core.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.connection.ConnectionContext;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdmissionGateTest {

    private static void tick(EmbeddedChannel server) {
        server.advanceTimeBy(AdmissionGate.RETRY_MILLIS, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
    }

    @Test
    void holdsTheSocketPastTheBudgetAndStopsAcceptingUntilASlotFrees() {
        AdmissionControl control = new AdmissionControl(0, 2, new SimpleMeterRegistry());
        EmbeddedChannel server = new EmbeddedChannel(new AdmissionGate(control, true, 1000));
        EmbeddedChannel first = new EmbeddedChannel();
        EmbeddedChannel second = new EmbeddedChannel();
        EmbeddedChannel third = new EmbeddedChannel();
        server.writeInbound(first, second, third);
        assertSame(first, server.readInbound());
        assertSame(second, server.readInbound());
        assertNull(server.readInbound(), "the third would pass the budget of 2 handshakes");
        assertFalse(server.config().isAutoRead(), "the next devices wait in the listen backlog");
        assertTrue(third.isOpen(), "held, not refused");
        assertEquals(1.0, control.holds(AdmissionControl.Rejection.HANDSHAKES));
        tick(server);
        assertNull(server.readInbound(), "still no slot");

        control.handshakeEnded();
        tick(server);
        assertSame(third, server.readInbound(), "a freed slot admits the held socket");
        assertTrue(server.config().isAutoRead(), "and the backlog is read again");
        assertEquals(2, control.handshakesInProgress());
        assertEquals(0.0, control.rejections(AdmissionControl.Rejection.HANDSHAKES));
        server.finishAndReleaseAll();
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
        third.finishAndReleaseAll();
    }

    @Test
    void closesASocketThatArrivesWhileAnotherIsHeldAfterADelay() {
        AdmissionControl control = new AdmissionControl(0, 1, new SimpleMeterRegistry());
        EmbeddedChannel server = new EmbeddedChannel(new AdmissionGate(control, true, 1000));
        EmbeddedChannel first = new EmbeddedChannel();
        EmbeddedChannel held = new EmbeddedChannel();
        EmbeddedChannel late = new EmbeddedChannel();
        server.writeInbound(first, held, late);
        assertSame(first, server.readInbound());
        assertNull(server.readInbound());
        assertTrue(late.isOpen(), "not closed at once: retries would come back in lockstep");
        server.advanceTimeBy(1001, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        assertFalse(late.isOpen());
        assertTrue(held.isOpen());
        assertEquals(1.0, control.rejections(AdmissionControl.Rejection.BUSY));
        server.finishAndReleaseAll();
        assertFalse(held.isOpen(), "a closed listener closes the socket it held");
        first.finishAndReleaseAll();
    }

    @Test
    void holdsNewConnectionsWhileBusyAndLetsThemInAfterwards() {
        AdmissionControl control = new AdmissionControl(0, 0, new SimpleMeterRegistry());
        EmbeddedChannel server = new EmbeddedChannel(new AdmissionGate(control, true, 1000));
        control.busy(true);
        EmbeddedChannel device = new EmbeddedChannel();
        server.writeInbound(device);
        assertNull(server.readInbound());
        assertEquals(0, control.handshakesInProgress(), "a held socket has no handshake slot");
        control.busy(false);
        tick(server);
        assertSame(device, server.readInbound());
        server.finishAndReleaseAll();
        device.finishAndReleaseAll();
    }

    @Test
    void busyShrinksTheHandshakeBudgetToAQuarterInsteadOfStoppingAdmission() {
        AdmissionControl control = new AdmissionControl(0, 8, new SimpleMeterRegistry());
        control.busy(true);
        assertNull(control.admit(true));
        assertNull(control.admit(true));
        assertSame(AdmissionControl.Rejection.BUSY, control.admit(true), "two of eight while busy");
        control.busy(false);
        assertNull(control.admit(true), "the whole budget again");
    }

    @Test
    void overloadHoldsNewConnectionsButNeverPausesAnAdmittedHandshake() {
        AdmissionControl control = new AdmissionControl(0, 0, new SimpleMeterRegistry());
        EmbeddedChannel admitted = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tls");
        context.holdHandshakeSlot(true);
        admitted.attr(ConnectionContext.KEY).set(context);
        assertNull(control.admit(true));
        admitted.pipeline().addLast(new HandshakeBudgetHandler(control));
        control.holdForOverload(true);
        admitted.pipeline().fireChannelActive();
        assertTrue(admitted.config().isAutoRead(), "its handshake keeps being read, so it cannot time out");
        assertSame(AdmissionControl.Rejection.BUSY, control.admit(true), "a new one waits");
        admitted.finishAndReleaseAll();
        assertEquals(0, control.handshakesInProgress(), "its slot came back when it closed");
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
    }
}
