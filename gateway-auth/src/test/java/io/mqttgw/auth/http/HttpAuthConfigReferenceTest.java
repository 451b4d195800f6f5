package io.mqttgw.auth.http;

import io.mqttgw.core.testkit.ConfigReference;
import org.junit.jupiter.api.Test;

class HttpAuthConfigReferenceTest {
    @Test
    void readmeDocumentsEveryHttpAuthKeyWithItsDefault() throws Exception {
        ConfigReference.assertReadmeDocuments(HttpAuthConfigKeys.ALL);
    }
}
