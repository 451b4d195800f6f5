package io.mqttgw.kafka.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerSmokeIT {
    @TempDir
    Path dir;

    @Test
    void startsAndCreatesTopics() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(dir)) {
            broker.createTopics("smoke");
            try (var admin = broker.admin()) {
                assertTrue(admin.listTopics().names().get().contains("smoke"));
            }
        }
    }
}
