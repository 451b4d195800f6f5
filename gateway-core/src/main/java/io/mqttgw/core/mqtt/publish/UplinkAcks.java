package io.mqttgw.core.mqtt.publish;

import io.mqttgw.core.spi.UplinkMessage;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The QoS 1 and 2 PUBLISHes of one connection that wait for the sink, in arrival order, so acknowledgements
 * leave in the order the PUBLISHes came in even when the sink completes them out of order. Also remembers the
 * QoS 2 packet ids from receipt to PUBREL, each with the entry of its first copy, so a retransmitted QoS 2 PUBLISH
 * is not sent twice and finding whether its first copy still waits is one lookup. That memory is bounded by the
 * window: past {@code mqtt.max-inflight-uplink} ids the oldest already answered are forgotten (an MQTT 3.1.1 client
 * retransmits only after a reconnect, when this state is gone anyway; a PUBREL for a forgotten id still gets its
 * PUBCOMP). Also holds the messages the sink refused for capacity, in order, until the sink has room
 * ({@link HeldUplink}). Event loop only.
 */
public final class UplinkAcks {

    /** One PUBLISH awaiting the sink. */
    static final class Pending {
        final int packetId;
        final boolean exactlyOnce;
        /** 0 waiting, 1 answered (accepted, or refused with {@link #reason}), 2 refused by the sink: no answer. */
        byte state;
        /**
         * The MQTT 5.0 reason code the answer carries (0 success); a failure code (0x80 and up) ends a QoS 2 flow at
         * PUBREC. Only ever set on a connection that takes reason codes.
         */
        byte reason;
        /** The message, while it is held for want of room in the sink; null otherwise. */
        UplinkMessage held;

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
    /** QoS 2 packet id to the entry of its first copy (null until added), oldest first. */
    private LinkedHashMap<Integer, Pending> awaitingRelease;
    private long forgotten;
    private boolean readingPaused;
    /** Messages held for want of room in the sink, oldest first; null until the sink first refused for capacity. */
    private ArrayDeque<Pending> held;
    /** This connection's wait for room, made on the first refusal for capacity and kept. */
    private HeldUplink roomWait;

    public UplinkAcks(int maxInflight) {
        this.maxInflight = maxInflight;
    }

    /** Queues a PUBLISH; a QoS 2 one must have been marked with {@link #receiveQos2} first. */
    Pending add(int packetId, boolean exactlyOnce) {
        Pending p = new Pending(packetId, exactlyOnce);
        queue.addLast(p);
        if (exactlyOnce && awaitingRelease != null) {
            awaitingRelease.replace(packetId, p);
        }
        return p;
    }

    /**
     * Marks a QoS 2 packet id as received. False when it is already known (a retransmission before PUBREL):
     * then it is only answered, in order, with PUBREC and not sent to the sink again.
     */
    boolean receiveQos2(int packetId) {
        if (awaitingRelease == null) {
            awaitingRelease = new LinkedHashMap<>(4);
        }
        if (awaitingRelease.containsKey(packetId)) {
            return false;
        }
        awaitingRelease.put(packetId, null);
        if (awaitingRelease.size() > maxInflight) {
            forgetOldestAnswered();
        }
        return true;
    }

    /** Forgets the oldest ids whose first copy the sink has answered, until the window bounds the ids again. */
    private void forgetOldestAnswered() {
        for (Iterator<Map.Entry<Integer, Pending>> it = awaitingRelease.entrySet().iterator();
             it.hasNext() && awaitingRelease.size() > maxInflight; ) {
            Pending first = it.next().getValue();
            if (first != null && first.state != 0) {
                it.remove();
                forgotten++;
            }
        }
    }

    /** QoS 2 packet ids remembered until their PUBREL. */
    public int awaitingRelease() {
        return awaitingRelease == null ? 0 : awaitingRelease.size();
    }

    /** QoS 2 packet ids forgotten to keep that memory within the window. */
    long forgotten() {
        return forgotten;
    }

    /** Whether a QoS 2 PUBLISH with this id still waits for the sink. */
    boolean waitingFor(int packetId) {
        Pending first = awaitingRelease == null ? null : awaitingRelease.get(packetId);
        return first != null && first.state == 0;
    }

    /** Queues the answer (PUBREC) to a retransmission whose first copy was answered already. */
    Pending addDuplicateQos2(int packetId) {
        Pending p = new Pending(packetId, true);
        p.state = 1;
        queue.addLast(p);
        return p;
    }

    public int size() {
        return queue.size();
    }

    boolean full() {
        return queue.size() >= maxInflight;
    }

    /** True when the backlog has drained to half the window and nothing is held, the point where reading resumes. */
    boolean drained() {
        return queue.size() <= maxInflight / 2 && !holding();
    }

    /** Whether messages wait for room in the sink: a later one then waits behind them, to keep the order. */
    boolean holding() {
        return held != null && !held.isEmpty();
    }

    /**
     * Holds a refused message: at the front when it came before those held (a resend refused again, or the first
     * refusal), else behind them. Sinks refuse for capacity at once, on the sending call, so a later message is never
     * refused before an earlier one; this keeps the order also when one does.
     */
    void holdRefused(Pending p, UplinkMessage message) {
        ArrayDeque<Pending> h = heldQueue();
        if (h.isEmpty() || before(p, h.peekFirst())) {
            h.addFirst(p);
        } else {
            h.addLast(p);
        }
        p.held = message;
    }

    private boolean before(Pending a, Pending b) {
        for (Pending p : queue) {
            if (p == a) {
                return true;
            }
            if (p == b) {
                return false;
            }
        }
        return false;
    }

    /** Holds {@code p}'s message behind those already held. */
    void holdLast(Pending p, UplinkMessage message) {
        heldQueue().addLast(p);
        p.held = message;
    }

    /** The oldest held message's entry (its message in {@code held}), taken out of the hold; null when none. */
    Pending pollHeld() {
        return held == null ? null : held.pollFirst();
    }

    private ArrayDeque<Pending> heldQueue() {
        if (held == null) {
            held = new ArrayDeque<>(4);
        }
        return held;
    }

    HeldUplink roomWait() {
        return roomWait;
    }

    void roomWait(HeldUplink wait) {
        this.roomWait = wait;
    }

    /**
     * The connection closed: held messages are dropped unacknowledged (the device sends them again) and the wait for
     * room ends, so the sink does not keep this connection. Returns how many were held.
     */
    public int releaseHeld() {
        int n = 0;
        if (held != null) {
            for (Pending p = held.pollFirst(); p != null; p = held.pollFirst()) {
                p.held = null;
                n++;
            }
        }
        if (roomWait != null) {
            roomWait.end();
        }
        return n;
    }

    /** Called when the connection closes: true if it was paused, so the paused-channels gauge can be corrected. */
    public boolean releasePause() {
        boolean was = readingPaused;
        readingPaused = false;
        return was;
    }

    public boolean readingPaused() {
        return readingPaused;
    }

    public void readingPaused(boolean paused) {
        this.readingPaused = paused;
    }

    /**
     * Forgets a QoS 2 packet id: on PUBREL, or when the sink refused it (so a retransmission is sent again). False when
     * the id was not remembered (MQTT 5.0: PUBCOMP says packet identifier not found).
     */
    boolean released(int packetId) {
        // the value may be null (its first copy not queued yet), so presence is asked before removing
        if (awaitingRelease == null || !awaitingRelease.containsKey(packetId)) {
            return false;
        }
        awaitingRelease.remove(packetId);
        return true;
    }

    /**
     * Whether a new QoS 1/2 PUBLISH with this id would pass the receive maximum, the window: a QoS 2 retransmission
     * of an id already received is not new.
     */
    boolean overReceiveMaximum(int qos, int packetId) {
        if (qos == 2 && awaitingRelease != null && awaitingRelease.containsKey(packetId)) {
            return false;
        }
        return unacknowledged() >= maxInflight;
    }

    /**
     * QoS 1 and 2 PUBLISHes not yet finished from the device's side (MQTT 5.0 receive maximum): QoS 1 until its
     * PUBACK is written, QoS 2 from receipt to PUBREL (answered at once with PUBCOMP).
     */
    int unacknowledged() {
        int n = awaitingRelease == null ? 0 : awaitingRelease.size();
        for (Pending p : queue) {
            if (!p.exactlyOnce) {
                n++;
            }
        }
        return n;
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
            if (head.reason != 0) {
                if (head.exactlyOnce && (head.reason & 0xFF) >= 0x80) {
                    // a failed PUBREC ends the QoS 2 flow: no PUBREL follows, and a resend is a new message
                    released(head.packetId);
                }
                return new MqttMessage(head.exactlyOnce ? PUBREC : PUBACK, new MqttPubReplyMessageVariableHeader(
                        head.packetId, head.reason, MqttProperties.NO_PROPERTIES));
            }
            if (head.exactlyOnce) {
                return new MqttMessage(PUBREC, MqttMessageIdVariableHeader.from(head.packetId));
            }
            return new MqttMessage(PUBACK, MqttMessageIdVariableHeader.from(head.packetId));
        }
    }
}
