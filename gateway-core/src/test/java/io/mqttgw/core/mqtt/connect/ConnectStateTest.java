package io.mqttgw.core.mqtt.connect;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The moves CONNECT may make: forward through its waits, to its end from anywhere, never back or out of the end. */
class ConnectStateTest {
    @Test
    void everyStateBeforeTheAnswerMayEnd() {
        for (ConnectState s : EnumSet.range(ConnectState.AWAITING_CONNECT, ConnectState.RESTORING)) {
            assertTrue(s.mayMoveTo(ConnectState.ENDED), s + " may end (refused or closed)");
            assertFalse(s.terminal());
        }
    }

    @Test
    void nothingFollowsAnEstablishedOrEndedConnect() {
        for (ConnectState from : EnumSet.of(ConnectState.ESTABLISHED, ConnectState.ENDED)) {
            assertTrue(from.terminal());
            for (ConnectState to : ConnectState.values()) {
                assertFalse(from.mayMoveTo(to), from + " -> " + to);
            }
        }
    }

    @Test
    void onlyAnAuthenticatedConnectIsEstablishedAndNoWaitIsEnteredTwice() {
        assertFalse(ConnectState.AWAITING_CONNECT.mayMoveTo(ConnectState.ESTABLISHED), "no CONNACK before auth");
        assertFalse(ConnectState.AWAITING_CONNECT.mayMoveTo(ConnectState.ROUTING));
        assertFalse(ConnectState.AWAITING_CONNECT.mayMoveTo(ConnectState.RESTORING));
        for (ConnectState s : ConnectState.values()) {
            assertFalse(s.mayMoveTo(s), s + " is not re-entered: a second answer to one wait finds it moved on");
        }
        assertFalse(ConnectState.RESTORING.mayMoveTo(ConnectState.ROUTING), "the route wait comes before restore");
        assertFalse(ConnectState.RESTORING.mayMoveTo(ConnectState.AUTHENTICATING));
        assertTrue(ConnectState.AUTHENTICATING.mayMoveTo(ConnectState.ESTABLISHED), "a clean certificate session");
    }
}
