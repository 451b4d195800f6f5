package io.mqttgw.core.protocol;

import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * The QoS 1 and 2 PUBLISHes of one connection that wait for the sink, in arrival order, so acknowledgements
 * leave in the order the PUBLISHes came in even when the sink completes them out of order. Also remembers the
 * QoS 2 packet ids from receipt to PUBREL, so a retransmitted QoS 2 PUBLISH is not sent twice. Event loop only.
 */
final class UplinkAcks {

    /** One PUBLISH awaiting the sink. */
    static final class Pending {
        final int packetId;
        final boolean exactlyOnce;
        /** 0 waiting, 1 accepted by the sink, 2 refused by the sink. */
        byte state;

        Pending(int packetId, boolean exactlyOnce) {
            this.packetId = packetId;
            this.exactlyOnce = exactlyOnce;
        }
    }

    private static final MqttFixedHeader PUBACK = new MqttFixedHeader(MqttMessageType.PUBACK, false,
            MqttQoS.AT_MOST_ONCE, false, 2);
    private static final MqttFixedHeader PUBREC = new MqttFixedHeader(MqttMessageType.PUBREC, false,
            MqttQoS.AT_MOST_ONCE, false, 2);

    private final ArrayDeque<Pending> queue = new ArrayDeque<>(4);
    private final int maxInflight;
    private Set<Integer> awaitingRelease;
    private boolean readingPaused;

    UplinkAcks(int maxInflight) {
        this.maxInflight = maxInflight;
    }

    Pending add(int packetId, boolean exactlyOnce) {
        Pending p = new Pending(packetId, exactlyOnce);
        queue.addLast(p);
        return p;
    }

    /**
     * Marks a QoS 2 packet id as received. False when it is already known (a retransmission before PUBREL):
     * then it is only answered, in order, with PUBREC and not sent to the sink again.
     */
    boolean receiveQos2(int packetId) {
        if (awaitingRelease == null) {
            awaitingRelease = new HashSet<>(4);
        }
        return awaitingRelease.add(packetId);
    }

    /** Whether a QoS 2 PUBLISH with this id still waits for the sink. */
    boolean waitingFor(int packetId) {
        for (Pending p : queue) {
            if (p.exactlyOnce && p.packetId == packetId && p.state == 0) {
                return true;
            }
        }
        return false;
    }

    Pending addDuplicateQos2(int packetId) {
        Pending p = add(packetId, true);
        p.state = 1;
        return p;
    }

    int size() {
        return queue.size();
    }

    boolean full() {
        return queue.size() >= maxInflight;
    }

    /** True when the backlog has drained to half the window, the point where reading resumes. */
    boolean drained() {
        return queue.size() <= maxInflight / 2;
    }

    /** Called when the connection closes: true if it was paused, so the paused-channels gauge can be corrected. */
    boolean releasePause() {
        boolean was = readingPaused;
        readingPaused = false;
        return was;
    }

    boolean readingPaused() {
        return readingPaused;
    }

    void readingPaused(boolean paused) {
        this.readingPaused = paused;
    }

    /** Forgets a QoS 2 packet id: on PUBREL, or when the sink refused it (so a retransmission is sent again). */
    void released(int packetId) {
        if (awaitingRelease != null) {
            awaitingRelease.remove(packetId);
        }
    }

    /**
     * Removes the completed head of the queue and returns the acknowledgement for it, or null when the head is
     * still waiting. Refused entries are dropped without an acknowledgement (the device retransmits).
     */
    MqttMessage pollAck() {
        while (true) {
            Pending head = queue.peekFirst();
            if (head == null || head.state == 0) {
                return null;
            }
            queue.pollFirst();
            if (head.state == 2) {
                if (head.exactlyOnce) {
                    released(head.packetId);
                }
                continue;
            }
            if (head.exactlyOnce) {
                return new MqttMessage(PUBREC, MqttMessageIdVariableHeader.from(head.packetId));
            }
            return new MqttMessage(PUBACK, MqttMessageIdVariableHeader.from(head.packetId));
        }
    }
}
