package io.mqttgw.core.admission;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.ValueParsers;
import java.time.Duration;
import java.util.Locale;

/**
 * The admission limits the node runs with: the configured ones, or for {@code auto} ones derived from the I/O
 * threads and the CPU cost of one full handshake, so that admitted handshakes cannot by themselves push event-loop
 * lag to the overload threshold. Immutable.
 *
 * <p>Handshakes in progress: a loop holding {@code n} admitted handshakes whose messages all arrive together works
 * through them one by one, so a task queued behind them waits up to {@code n x cost}. Keeping that under a quarter
 * of the lag threshold ({@link #LAG_SHARE}) leaves room for a shared or throttled CPU (a machine whose cores are
 * also busy with other processes runs the same work in about twice the wall time). Connection rate: at most
 * {@link #CPU_SHARE} of the I/O threads' time goes to handshakes, the rest stays with connected devices.
 *
 * <p>The rate is a budget of CPU time counted in full handshakes: every new connection is charged a full handshake
 * up front (nothing tells its kind before its handshake ends) and, when its handshake completes as a known device or
 * a resumed session, gets back the difference ({@link #knownDeviceShare}, {@link #resumedShare}). So a storm of
 * resumed reconnects comes in at up to {@code 1 / resumedShare} times the full-handshake rate, while the CPU time
 * admitted a second stays at most {@code connectionRate x handshake-cost}, whatever the mix. The in-flight budget
 * stays a count of full handshakes: it bounds the lag in the worst case, before any kind is known.
 *
 * @param connectionRate full handshakes' worth of new connections a second, 0 for no limit
 * @param maxHandshakes  TLS handshakes at once, 0 for no limit
 * @param rateDerived    whether {@code connectionRate} was derived
 * @param budgetDerived  whether {@code maxHandshakes} was derived
 * @param knownDeviceShare what a full handshake of a known device costs, as a share of a full one (0..1]
 * @param resumedShare   what a resumed handshake costs, as a share of a full one (0..1]
 */
public record AdmissionBudget(int connectionRate, int maxHandshakes, boolean rateDerived, boolean budgetDerived,
                              double knownDeviceShare, double resumedShare) {
    /** Share of the lag threshold that a loop's admitted handshakes may take. */
    static final int LAG_SHARE = 4;
    /** Share of the I/O threads' time that full handshakes may take. */
    static final double CPU_SHARE = 0.75;
    /** The lag that bounds the budget when the lag signal is off (the default of overload.event-loop-lag). */
    static final Duration DEFAULT_LAG = Duration.ofMillis(500);

    /**
     * @param ioThreads    the node's I/O event loops
     * @param lagThreshold overload.event-loop-lag; zero (signal off) falls back to {@link #DEFAULT_LAG}
     */
    public static AdmissionBudget derive(GatewayConfig.Admission admission, int ioThreads, Duration lagThreshold) {
        long cost = Math.max(1, admission.handshakeCost().toNanos());
        Duration lag = lagThreshold.isZero() ? DEFAULT_LAG : lagThreshold;
        boolean rateAuto = admission.connectionRate() == ValueParsers.AUTO;
        boolean budgetAuto = admission.maxHandshakes() == ValueParsers.AUTO;
        int rate = rateAuto
                ? (int) Math.max(1, Math.min(1_000_000, ioThreads * CPU_SHARE * 1_000_000_000L / cost))
                : admission.connectionRate();
        int budget = budgetAuto
                ? (int) Math.max(1, Math.min(1_000_000, (long) ioThreads * Math.max(1,
                        lag.toNanos() / (LAG_SHARE * cost))))
                : admission.maxHandshakes();
        return new AdmissionBudget(rate, budget, rateAuto, budgetAuto,
                share(admission.knownDeviceHandshakeCost(), cost), share(admission.resumedHandshakeCost(), cost));
    }

    /** A kind's cost as a share of a full handshake's, never more than one (a cheaper kind is never charged more). */
    private static double share(Duration kindCost, long fullCostNanos) {
        return Math.min(1.0, Math.max(1, kindCost.toNanos()) / (double) fullCostNanos);
    }

    /** One line for the startup log. */
    public String describe() {
        return "admission: connection-rate " + limit(connectionRate) + "/s" + (rateDerived ? " (auto)" : "")
                + ", max-handshakes " + limit(maxHandshakes) + (budgetDerived ? " (auto)" : "")
                + (connectionRate == 0 ? "" : String.format(Locale.ROOT,
                " (a known device is charged %.2f, a resumed session %.2f of a full handshake)", knownDeviceShare,
                resumedShare));
    }

    private static String limit(int value) {
        return value == 0 ? "unlimited" : Integer.toString(value);
    }
}
