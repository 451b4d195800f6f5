package io.mqttgw.kafka.uplink;

import java.util.Locale;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Why a record did not reach Kafka; each is a label of {@code mqttgw_kafka_records_failed_total}. */
public enum KafkaFailure {
    /** {@code uplink.kafka.max-pending-bytes} reached: refused before the producer saw it. */
    PENDING_BYTES_FULL(true, true),
    /** The producer's buffer is full. */
    BUFFER_FULL(true, true),
    /** The topic's metadata is not known (Kafka unreachable, or a topic first seen while it is). */
    METADATA_UNAVAILABLE(true, true),
    /** Not acknowledged within the delivery timeout. */
    TIMEOUT(false, true),
    /** The record exceeds what the producer or broker accepts: a device problem, not Kafka's. */
    RECORD_TOO_LARGE(false, false),
    /** The topic does not exist and is not created automatically. */
    UNKNOWN_TOPIC(false, true),
    /** The gateway may not write the topic, or could not authenticate. */
    NOT_AUTHORIZED(false, true),
    /** The producer is closed (shutdown). */
    CLOSED(true, false),
    OTHER(false, true);

    private final boolean immediate;
    private final boolean degradesHealth;
    private final String label = name().toLowerCase(Locale.ROOT);

    KafkaFailure(boolean immediate, boolean degradesHealth) {
        this.immediate = immediate;
        this.degradesHealth = degradesHealth;
    }

    public String label() {
        return label;
    }

    /** Refused at once, without trying: reported to the gateway as a refusal. */
    public boolean immediate() {
        return immediate;
    }

    /** Says something about Kafka (not about one message), so {@code /health} reports it. */
    public boolean degradesHealth() {
        return degradesHealth;
    }

    /**
     * @param duringSend the producer called back before {@code send} returned: with {@code max.block.ms=0} a
     *                   timeout then means missing metadata, not a delivery timeout
     */
    public static KafkaFailure classify(Throwable error, boolean duringSend) {
        if (error instanceof BufferExhaustedException) {
            return BUFFER_FULL;
        }
        if (error instanceof TimeoutException) {
            return duringSend ? METADATA_UNAVAILABLE : TIMEOUT;
        }
        if (error instanceof RecordTooLargeException) {
            return RECORD_TOO_LARGE;
        }
        if (error instanceof UnknownTopicOrPartitionException) {
            return UNKNOWN_TOPIC;
        }
        if (error instanceof AuthorizationException || error instanceof AuthenticationException) {
            return NOT_AUTHORIZED;
        }
        if (error instanceof IllegalStateException) {
            return CLOSED;
        }
        return OTHER;
    }
}
