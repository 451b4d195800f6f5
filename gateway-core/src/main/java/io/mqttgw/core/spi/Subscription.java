package io.mqttgw.core.spi;

/**
 * What a device asked for with one topic filter of a SUBSCRIBE, as the gateway granted it. An MQTT 3.1.1 subscription
 * (and a 5.0 one with default options) is one of three shared constants ({@link #ofQos}), so a 3.1.1 session holds
 * what it held before MQTT 5.0: a reference per filter. No local is not kept: a gateway never sends a device its own
 * messages.
 *
 * @param qos               the granted QoS, 0 to 2
 * @param retainAsPublished MQTT 5.0 retain as published: a live message keeps its retain flag (else it is cleared)
 * @param retainHandling    MQTT 5.0 retain handling: 0 retained messages on every SUBSCRIBE, 1 only on a new
 *                          subscription, 2 never
 * @param identifier        MQTT 5.0 subscription identifier (1 to 268,435,455), or 0 for none
 */
public record Subscription(int qos, boolean retainAsPublished, int retainHandling, int identifier) {
    private static final Subscription[] QOS_ONLY = {
            new Subscription(0, false, 0, 0), new Subscription(1, false, 0, 0), new Subscription(2, false, 0, 0)};

    /** The largest subscription identifier MQTT 5.0 can carry (a four-byte variable byte integer). */
    public static final int MAX_IDENTIFIER = 268_435_455;

    public Subscription {
        if (qos < 0 || qos > 2 || retainHandling < 0 || retainHandling > 2 || identifier < 0
                || identifier > MAX_IDENTIFIER) {
            throw new IllegalArgumentException("invalid subscription options: qos " + qos + ", retain handling "
                    + retainHandling + ", identifier " + identifier);
        }
    }

    /** The shared constant for a subscription with default options (every MQTT 3.1.1 subscription). */
    public static Subscription ofQos(int qos) {
        return QOS_ONLY[qos];
    }

    /** The subscription with these options: the shared constant when they are the defaults. */
    public static Subscription of(int qos, boolean retainAsPublished, int retainHandling, int identifier) {
        if (!retainAsPublished && retainHandling == 0 && identifier == 0) {
            return QOS_ONLY[qos];
        }
        return new Subscription(qos, retainAsPublished, retainHandling, identifier);
    }

    /** True when only the QoS is set (the 3.1.1 shape). */
    public boolean qosOnly() {
        return !retainAsPublished && retainHandling == 0 && identifier == 0;
    }
}
