package io.mqttgw.core.connection;


/**
 * What an MQTT 5.0 session adds to its connection: the session expiry interval in force (the one CONNECT asked for,
 * capped at {@code session.expiry}, or the one the device's DISCONNECT changed it to) and the will delay interval.
 * Created only for a 5.0 device that asked for either; 3.1.1 connections and 5.0 ones without them keep a null
 * reference in {@link ConnectionContext} (which fits its padding), so they pay nothing. Event loop only.
 */
public final class Mqtt5Session {
    /** Seconds, at most {@code session.expiry} (3650 days fit an int). */
    private int expirySeconds;
    /** Seconds; the will is published this long after the connection ended unless the session resumes first. */
    private final int willDelaySeconds;

    public Mqtt5Session(int expirySeconds, int willDelaySeconds) {
        this.expirySeconds = expirySeconds;
        this.willDelaySeconds = willDelaySeconds;
    }

    public int expirySeconds() {
        return expirySeconds;
    }

    /** A DISCONNECT set another interval (already capped). */
    public void expirySeconds(int seconds) {
        this.expirySeconds = seconds;
    }

    public int willDelaySeconds() {
        return willDelaySeconds;
    }
}
