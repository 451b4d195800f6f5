package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import java.util.concurrent.CompletableFuture;

/**
 * One downlink message to one connection, from the moment it is handed over until its outcome: its shared encoding
 * (one reference of it is this message's), the QoS it goes out at, where it sits in the session store, and, once
 * sent, its packet id, retransmissions and QoS 2 progress. Event loop only (its connection's).
 */
final class PendingDownlink {
    private final DownlinkPublish publish;
    private final int qos;
    /** Completed with the outcome; null when nobody waits for one (a message restored from the store). */
    private final CompletableFuture<Outcome> result;
    private final long startNanos = System.nanoTime();
    /** Its id in the session store, or null while (or because) the store does not hold it. */
    private String storedId;
    private int packetId;
    private int retries;
    private long sentAtNanos;
    /** QoS 2: the device sent PUBREC and was sent PUBREL; PUBCOMP completes it. */
    private boolean pubRelSent;
    private boolean done;

    PendingDownlink(DownlinkPublish publish, int qos, CompletableFuture<Outcome> result) {
        this.publish = publish;
        this.qos = qos;
        this.result = result;
    }

    DownlinkPublish publish() {
        return publish;
    }

    int qos() {
        return qos;
    }

    boolean expired(long nowMillis) {
        return publish.message().expired(nowMillis);
    }

    long startNanos() {
        return startNanos;
    }

    String storedId() {
        return storedId;
    }

    void stored(String id) {
        this.storedId = id;
    }

    int packetId() {
        return packetId;
    }

    /** Sent for the first time, under {@code id}. */
    void sent(int id, long nanos) {
        this.packetId = id;
        this.sentAtNanos = nanos;
    }

    long sentAtNanos() {
        return sentAtNanos;
    }

    /** The retransmission is put off (the device does not read): the interval counts again from {@code nanos}. */
    void postponed(long nanos) {
        this.sentAtNanos = nanos;
    }

    int retries() {
        return retries;
    }

    /** Sent again at {@code nanos}. */
    void retried(long nanos) {
        retries++;
        sentAtNanos = nanos;
    }

    boolean pubRelSent() {
        return pubRelSent;
    }

    /** The device's PUBREC arrived and PUBREL is written at {@code nanos}; from now on that is what is resent. */
    void pubRelSent(long nanos) {
        pubRelSent = true;
        sentAtNanos = nanos;
    }

    boolean done() {
        return done;
    }

    /** The outcome is decided: gives the encoding back and tells whoever waits. */
    void complete(Outcome outcome) {
        done = true;
        publish.release();
        if (result != null) {
            result.complete(outcome);
        }
    }
}
