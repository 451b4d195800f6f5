package io.mqttgw.kafka.downlink;

import io.mqttgw.core.testkit.ConfigReference;
import org.junit.jupiter.api.Test;

class KafkaDownlinkConfigReferenceTest {
    @Test
    void readmeDocumentsEveryDownlinkKeyWithItsDefault() throws Exception {
        ConfigReference.assertReadmeDocuments(KafkaDownlinkConfigKeys.ALL);
    }
}
