package io.mqttgw.bench.sim.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What each connected device sends. The field defaults: a 20-byte heartbeat every 15 s, a 500-byte status every
 * 60 s, a PINGREQ every keepalive (120 s), each at a random phase so the load is smooth. {@code timeScale} divides
 * every interval (10 makes a device ten times as busy). {@code enabled} false means idle devices (PINGREQ only).
 * With a {@code sequenceFile}, every QoS 1 payload starts with the device's message number (10 ASCII digits, counted
 * from 1 per device, the rest ASCII filler), and each worker writes, at the end of the run, how many it numbered and
 * which of them still waited for their PUBACK: what a reader of the sink needs to prove that no acknowledged message
 * was lost. Null leaves the payload random and shared.
 */
public record TrafficProfile(boolean enabled, double timeScale, Duration heartbeatInterval, int heartbeatBytes,
                             int heartbeatQos, Duration statusInterval, int statusBytes, int statusQos,
                             Duration keepAlive, Path sequenceFile) {

    /** Length of the ASCII message number at the start of a numbered payload. */
    public static final int SEQUENCE_DIGITS = 10;

    public boolean numbered() {
        return sequenceFile != null;
    }

    public long heartbeatNanos() {
        return scaled(heartbeatInterval);
    }

    public long statusNanos() {
        return scaled(statusInterval);
    }

    public long pingNanos() {
        return scaled(keepAlive);
    }

    /** Keepalive announced in CONNECT, in whole seconds, scaled like the PINGREQ interval (at least 1). */
    public int keepAliveSeconds() {
        return (int) Math.max(1, Math.min(65_535, Math.round(keepAlive.toSeconds() / timeScale)));
    }

    private long scaled(Duration d) {
        return Math.max(1_000_000L, (long) (d.toNanos() / timeScale));
    }
}
