package io.mqttgw.core.mqtt.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UplinkAcksTest {

    private static List<String> drain(UplinkAcks acks) {
        List<String> out = new ArrayList<>();
        for (MqttMessage m = acks.pollAck(); m != null; m = acks.pollAck()) {
            out.add(m.fixedHeader().messageType() + " "
                    + ((MqttMessageIdVariableHeader) m.variableHeader()).messageId());
        }
        return out;
    }

    @Test
    void releasesAcknowledgementsOnlyFromTheCompletedHeadInArrivalOrder() {
        UplinkAcks acks = new UplinkAcks(8);
        UplinkAcks.Pending a = acks.add(1, false);
        UplinkAcks.Pending b = acks.add(2, true);
        UplinkAcks.Pending c = acks.add(3, false);

        c.state = 1;
        b.state = 1;
        assertNull(acks.pollAck(), "head still waiting");
        assertEquals(3, acks.size());

        a.state = 1;
        assertEquals(List.of("PUBACK 1", "PUBREC 2", "PUBACK 3"), drain(acks));
        assertEquals(0, acks.size());
    }

    @Test
    void dropsRefusedEntriesWithoutAnAcknowledgement() {
        UplinkAcks acks = new UplinkAcks(8);
        UplinkAcks.Pending a = acks.add(1, false);
        UplinkAcks.Pending b = acks.add(2, false);
        a.state = 2;
        b.state = 1;
        assertEquals(List.of("PUBACK 2"), drain(acks));
    }

    @Test
    void acknowledgementsHaveTheRightFixedHeader() {
        UplinkAcks acks = new UplinkAcks(8);
        acks.add(9, false).state = 1;
        MqttMessage ack = acks.pollAck();
        assertEquals(MqttMessageType.PUBACK, ack.fixedHeader().messageType());
        assertEquals(2, ack.fixedHeader().remainingLength());
        assertEquals(9, ((MqttMessageIdVariableHeader) ack.variableHeader()).messageId());
    }

    @Test
    void remembersQos2IdsUntilReleased() {
        UplinkAcks acks = new UplinkAcks(8);
        assertTrue(acks.receiveQos2(4));
        assertFalse(acks.receiveQos2(4), "a retransmission before PUBREL");
        assertTrue(acks.receiveQos2(5));
        acks.released(4);
        assertTrue(acks.receiveQos2(4), "free again after PUBREL");
    }

    @Test
    void forgetsARefusedQos2IdSoARetransmissionIsSentAgain() {
        UplinkAcks acks = new UplinkAcks(8);
        assertTrue(acks.receiveQos2(4));
        acks.add(4, true).state = 2;
        assertNull(acks.pollAck());
        assertTrue(acks.receiveQos2(4));
    }

    @Test
    void aDuplicateQos2IsAcknowledgedInItsPlace() {
        UplinkAcks acks = new UplinkAcks(8);
        UplinkAcks.Pending first = acks.add(1, false);
        acks.addDuplicateQos2(4);
        assertNull(acks.pollAck(), "behind the waiting head");
        first.state = 1;
        assertEquals(List.of("PUBACK 1", "PUBREC 4"), drain(acks));
    }

    @Test
    void isFullAtMaxInflightAndDrainedAtHalf() {
        UplinkAcks acks = new UplinkAcks(4);
        List<UplinkAcks.Pending> pending = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            pending.add(acks.add(i, false));
        }
        assertFalse(acks.full());
        assertFalse(acks.drained());
        pending.add(acks.add(4, false));
        assertTrue(acks.full());

        pending.get(0).state = 1;
        pending.get(1).state = 1;
        assertEquals(2, drain(acks).size());
        assertFalse(acks.full());
        assertTrue(acks.drained());
    }

    @Test
    void remembersWhetherReadingIsPaused() {
        UplinkAcks acks = new UplinkAcks(4);
        assertFalse(acks.readingPaused());
        acks.readingPaused(true);
        assertTrue(acks.readingPaused());
    }

    @Test
    void findsWhetherTheFirstCopyOfAQos2IdStillWaitsWithOneLookup() {
        UplinkAcks acks = new UplinkAcks(8);
        for (int id = 1; id <= 8; id++) {
            assertTrue(acks.receiveQos2(id));
            acks.add(id, true);
        }
        assertFalse(acks.receiveQos2(8), "known id: a retransmission");
        assertTrue(acks.waitingFor(8));
        assertFalse(acks.waitingFor(9));
        acks.addDuplicateQos2(8);
        assertTrue(acks.waitingFor(8), "a duplicate's answer does not stand for the first copy");
    }

    @Test
    void forgetsOnlyAnsweredIdsPastTheWindow() {
        UplinkAcks acks = new UplinkAcks(2);
        acks.receiveQos2(1);
        acks.add(1, true); // still waiting for the sink: never forgotten
        acks.receiveQos2(2);
        acks.add(2, true).state = 1;
        acks.receiveQos2(3);
        acks.add(3, true).state = 1;
        assertEquals(2, acks.awaitingRelease());
        assertTrue(acks.waitingFor(1));
        assertTrue(acks.receiveQos2(2), "the answered id 2 was forgotten");
    }
}
