package io.mqttgw.bench.sim.pki;

import io.mqttgw.bench.sim.config.CertMode;
import io.mqttgw.bench.sim.config.FleetOptions;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * The credentials of one process's devices ({@code first} to {@code first + count - 1}), loaded from the PKI's
 * cache or issued in parallel at startup, then read-only. Looked up by client id, which is the TLS peer host.
 * Thread-safe after construction.
 */
public final class DeviceCredentials {
    private final String prefix;
    private final int first;
    private final int count;
    private final CertMode mode;
    private final DeviceCredential[] credentials;

    private DeviceCredentials(String prefix, int first, int count, CertMode mode, DeviceCredential[] credentials) {
        this.prefix = prefix;
        this.first = first;
        this.count = count;
        this.mode = mode;
        this.credentials = credentials;
    }

    /** Loads or issues what {@code options.certMode()} needs; {@code progress} is told every 1000 devices. */
    public static DeviceCredentials load(BenchPki pki, FleetOptions options, int first, int count,
                                         java.util.function.IntConsumer progress) {
        DeviceCredential[] creds;
        AtomicInteger done = new AtomicInteger();
        switch (options.certMode()) {
            case SHARED -> creds = new DeviceCredential[] {pki.device("bench-shared")};
            case POOL -> {
                creds = new DeviceCredential[options.certPool()];
                DeviceCredential[] out = creds;
                IntStream.range(0, out.length).parallel().forEach(k -> out[k] = pki.device("bench-pool-" + k));
            }
            default -> {
                creds = new DeviceCredential[count];
                DeviceCredential[] out = creds;
                IntStream.range(0, count).parallel().forEach(i -> {
                    out[i] = pki.device(options.clientId(first + i));
                    int n = done.incrementAndGet();
                    if (n % 1000 == 0) {
                        progress.accept(n);
                    }
                });
            }
        }
        return new DeviceCredentials(options.clientIdPrefix(), first, count, options.certMode(), creds);
    }

    /** This process's index (0-based) of {@code clientId}, or -1. */
    public int localIndex(String clientId) {
        if (clientId == null || !clientId.startsWith(prefix)) {
            return -1;
        }
        int index;
        try {
            index = Integer.parseInt(clientId, prefix.length(), clientId.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
        int local = index - first;
        return local >= 0 && local < count ? local : -1;
    }

    /** The credential presented by {@code clientId}'s device, or null when it is not one of ours. */
    public DeviceCredential forClientId(String clientId) {
        int local = localIndex(clientId);
        if (local < 0) {
            return null;
        }
        return switch (mode) {
            case SHARED -> credentials[0];
            case POOL -> credentials[(first + local) % credentials.length];
            default -> credentials[local];
        };
    }
}
