package io.mqttgw.bench.sim.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How many devices, how they connect and with which credentials. {@code workers} 0 runs every device inside the
 * coordinator's JVM (tests, small runs); otherwise devices are spread over that many worker processes of at most
 * {@code perWorker} devices each (open files are limited per process).
 */
public record FleetOptions(int devices, int perWorker, int workers, String clientIdPrefix, int rampRate,
                           int maxHandshakes, SourceAddresses sources, Duration connectTimeout, Path pkiDir,
                           KeyAlgorithm algorithm, CertMode certMode, int certPool, Path serverCa, boolean resume,
                           List<String> tlsGroups, int ioThreads, ProtocolOptions protocol) {

    /**
     * This run's options as worker {@code index} of {@code workers} applies them: its slice of the source addresses
     * and its share of the ramp rate and of the handshake cap (both are totals over all workers).
     */
    public FleetOptions forWorker(int index, int workers) {
        return new FleetOptions(devices, perWorker, this.workers, clientIdPrefix, share(rampRate, index, workers),
                share(maxHandshakes, index, workers), sources.slice(index, workers), connectTimeout, pkiDir,
                algorithm, certMode, certPool, serverCa, resume, tlsGroups, ioThreads, protocol);
    }

    /** Worker {@code index}'s part of {@code total}: the parts add up to the total, and none is below 1. */
    static int share(int total, int index, int workers) {
        return Math.max(1, total / workers + (index < total % workers ? 1 : 0));
    }

    /** The client id (and certificate CN) of device {@code index}. */
    public String clientId(int index) {
        return clientIdPrefix + index;
    }
}
