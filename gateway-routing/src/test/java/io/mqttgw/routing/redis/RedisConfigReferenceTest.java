package io.mqttgw.routing.redis;

import io.mqttgw.core.testkit.ConfigReference;
import org.junit.jupiter.api.Test;

class RedisConfigReferenceTest {
    @Test
    void readmeDocumentsEveryRedisKeyWithItsDefault() throws Exception {
        ConfigReference.assertReadmeDocuments(RedisConfigKeys.ALL);
    }
}
