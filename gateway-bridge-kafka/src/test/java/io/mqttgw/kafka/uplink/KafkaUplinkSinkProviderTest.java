package io.mqttgw.kafka.uplink;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.Test;

class KafkaUplinkSinkProviderTest {
    @Test
    void createsThePartitionersLoggerBeforeAnEventLoopSends() {
        KafkaUplinkSinkProvider.warmUpPartitionerLogger();

        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        assertTrue(context.hasLogger(KafkaUplinkSinkProvider.PARTITIONER_LOGGER),
                "the logger an event loop would otherwise create under the registry's write lock");
    }
}
