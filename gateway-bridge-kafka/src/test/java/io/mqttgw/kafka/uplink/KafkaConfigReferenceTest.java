package io.mqttgw.kafka.uplink;

import io.mqttgw.core.testkit.ConfigReference;
import org.junit.jupiter.api.Test;

class KafkaConfigReferenceTest {
    @Test
    void readmeDocumentsEveryKafkaKeyWithItsDefault() throws Exception {
        ConfigReference.assertReadmeDocuments(KafkaConfigKeys.ALL);
    }
}
