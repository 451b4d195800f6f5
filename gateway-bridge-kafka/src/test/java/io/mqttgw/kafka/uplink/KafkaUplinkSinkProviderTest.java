package io.mqttgw.kafka.uplink;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
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

    @Test
    void loadsEveryCodecTheConfigAllowsOnThisMachineAtStartup() {
        for (String codec : new String[] {"none", "gzip", "snappy", "lz4", "zstd"}) {
            assertDoesNotThrow(() -> KafkaUplinkSinkProvider.warmUpCompression(codec), codec);
        }
    }

    @Test
    void aCodecThatCannotCompressStopsStartupNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> KafkaUplinkSinkProvider.warmUpCompression("brotli"));
        assertTrue(e.getMessage().startsWith("uplink.kafka.compression = 'brotli' cannot compress on this machine"),
                e.getMessage());
        assertTrue(e.getMessage().contains("choose another codec"), e.getMessage());
    }
}
