package io.mqttgw.core.mqtt.publish;

import io.mqttgw.core.connection.ConnectionContext;

/**
 * MQTT 5.0 uplink topic aliases: a PUBLISH with a topic sets an alias to it, one with an empty topic uses what the
 * alias was set to. The table lives on the connection ({@link ConnectionContext#topicAliases()}), made on the first
 * alias so a connection that uses none carries none. Stateless; event loop only (the table is the connection's).
 */
final class TopicAliases {
    private TopicAliases() {
    }

    /**
     * The topic of a PUBLISH carrying {@code alias}; null when the alias is invalid: 0, above {@code maximum}, or
     * unknown with an empty topic (MQTT-3.3.2-7/8/9). The table holds {@code maximum} + 1 references.
     */
    static String resolve(ConnectionContext context, int alias, String topic, int maximum) {
        if (alias <= 0 || alias > maximum) {
            return null;
        }
        String[] table = context.topicAliases();
        if (table == null) {
            table = new String[maximum + 1];
            context.topicAliases(table);
        }
        if (topic.isEmpty()) {
            return table[alias];
        }
        table[alias] = topic;
        return topic;
    }
}
