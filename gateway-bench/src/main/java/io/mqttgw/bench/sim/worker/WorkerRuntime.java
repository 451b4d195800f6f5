package io.mqttgw.bench.sim.worker;

import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.device.DeviceFleet;
import io.mqttgw.bench.sim.pki.BenchPki;
import io.mqttgw.bench.sim.pki.ClientTls;
import io.mqttgw.bench.sim.pki.DeviceCredentials;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import javax.net.ssl.SSLException;

/**
 * One worker's devices, in a worker process or inside the coordinator: the device slice for its index, its
 * credentials, its TLS context and fleet, and the commands the coordinator sends. Commands are called from one
 * control thread; the fleet does the rest on its event loops.
 */
public final class WorkerRuntime implements AutoCloseable {
    private final int index;
    private final int first;
    private final int count;
    private final ClientTls tls;
    private final DeviceFleet fleet;

    public WorkerRuntime(BenchOptions options, int index, int workers, IntConsumer credentialProgress)
            throws SSLException {
        this.index = index;
        int devices = options.fleet().devices();
        int per = (devices + workers - 1) / workers;
        this.first = Math.min(devices, index * per);
        this.count = Math.min(devices, first + per) - first;
        BenchPki pki = BenchPki.open(options.fleet().pkiDir(), options.fleet().algorithm());
        DeviceCredentials credentials = DeviceCredentials.load(pki, options.fleet(), first, count, credentialProgress);
        AtomicReference<DeviceFleet> fleetRef = new AtomicReference<>();
        ClientTls tls = ClientTls.create(options.fleet().serverCa(), credentials::forClientId, clientId -> {
            DeviceFleet f = fleetRef.get();
            if (f != null) {
                f.certificateRequested(credentials.localIndex(clientId));
            }
        }, options.target().port(), options.fleet().resume(), options.fleet().tlsGroups(), sessionCacheSize(count));
        this.tls = tls;
        this.fleet = new DeviceFleet(options.fleet().forWorker(index, workers), options.profile(), options.run(),
                options.target(), tls, first, count);
        fleetRef.set(fleet);
    }

    /**
     * Client session cache entries for {@code devices}: a TLS 1.3 server may issue two tickets per connection and
     * the cache evicts its oldest entries, so during a storm the tickets of reconnected devices (two new ones each)
     * would push out those of devices still waiting to reconnect. Four per device, plus slack, keeps every device's
     * ticket until it is used.
     */
    static int sessionCacheSize(int devices) {
        return (int) Math.min(Integer.MAX_VALUE, 4L * devices + 1024);
    }

    public int index() {
        return index;
    }

    public int devices() {
        return count;
    }

    public String transport() {
        return fleet.transport();
    }

    public void start() {
        fleet.start();
    }

    public int drop(double fraction) {
        return fleet.drop(fraction);
    }

    public void publish(double rate, int qos, int bytes) {
        fleet.startPublishing(rate, qos, bytes);
    }

    public void stopPublishing() {
        fleet.stopPublishing();
    }

    public WorkerReport report() {
        return WorkerReport.of(index, count, fleet.stats().snapshot(), fleet.fleetCounters(),
                fleet.stats().pingLatencyInterval());
    }

    @Override
    public void close() {
        fleet.close();
        tls.close();
    }
}
