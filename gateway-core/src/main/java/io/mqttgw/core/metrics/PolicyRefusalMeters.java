package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.identity.IdentityRules;
import io.mqttgw.core.topic.TopicLimits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Meters of what the gateway's rules refused without closing for a protocol error: topics outside a device's ACL,
 * identities that break the character rules or clash with another proof, topics past the length or level limits,
 * and MQTT 5.0 PUBLISHes answered with a failure reason code. Created once, so counting is one increment.
 *
 * <p>Thread-safe; counted from every event loop, read at scrape time on the admin thread.
 */
final class PolicyRefusalMeters {
    private final Counter aclDeniedPublish;
    private final Counter aclDeniedSubscribe;
    private final Map<String, Counter> identitiesRejected = new HashMap<>();
    private final Map<String, Counter> topicsRefused = new HashMap<>();
    private final Map<String, Counter> publishesRefused = new HashMap<>();

    PolicyRefusalMeters(MeterRegistry registry, String proofConflict, List<String> topicPlaces,
                        List<String> publishRefusals) {
        aclDeniedPublish = Counter.builder("mqttgw.acl.denied").tag("action", "publish")
                .description("PUBLISHes and SUBSCRIBE filters outside the device's topic ACL").register(registry);
        aclDeniedSubscribe = Counter.builder("mqttgw.acl.denied").tag("action", "subscribe")
                .description("PUBLISHes and SUBSCRIBE filters outside the device's topic ACL").register(registry);
        List<String> identityReasons = new ArrayList<>();
        for (IdentityRules.Violation v : IdentityRules.Violation.values()) {
            identityReasons.add(v.label());
        }
        identityReasons.add(proofConflict);
        for (String reason : identityReasons) {
            identitiesRejected.put(reason, Counter.builder("mqttgw.identities.rejected").tag("reason", reason)
                    .description("CONNECTs refused with identifier rejected because of their identity: a character "
                            + "rule, or proof_conflict (the id is held by a connection proven the other way)")
                    .register(registry));
        }
        for (String where : topicPlaces) {
            for (TopicLimits.Exceeded e : TopicLimits.Exceeded.values()) {
                topicsRefused.put(where + e.label(), Counter.builder("mqttgw.topics.refused").tag("where", where)
                        .tag("limit", e.label()).description("Topics and filters past mqtt.max-topic-length or "
                                + "mqtt.max-topic-levels, by where they came from").register(registry));
            }
        }
        for (String reason : publishRefusals) {
            publishesRefused.put(reason, Counter.builder("mqttgw.publish.refused").tag("reason", reason)
                    .description("MQTT 5.0 device PUBLISHes answered with a failure reason code instead of a close")
                    .register(registry));
        }
    }

    Counter aclDenied(boolean publish) {
        return publish ? aclDeniedPublish : aclDeniedSubscribe;
    }

    Counter identitiesRejected(String reason) {
        return identitiesRejected.get(reason);
    }

    Counter topicsRefused(String where, TopicLimits.Exceeded limit) {
        return topicsRefused.get(where + limit.label());
    }

    Counter publishesRefused(String reason) {
        return publishesRefused.get(reason);
    }
}
