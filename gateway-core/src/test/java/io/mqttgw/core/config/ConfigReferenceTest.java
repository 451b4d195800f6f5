package io.mqttgw.core.config;

import io.mqttgw.core.testkit.ConfigReference;
import org.junit.jupiter.api.Test;

/** The README's configuration reference names every key core declares, with its default (deploy tests the sample). */
class ConfigReferenceTest {
    @Test
    void readmeDocumentsEveryKeyWithItsDefault() throws Exception {
        ConfigReference.assertReadmeDocuments(CoreConfigKeys.ALL);
    }
}
