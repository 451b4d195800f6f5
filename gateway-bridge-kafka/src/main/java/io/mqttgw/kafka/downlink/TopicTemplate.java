package io.mqttgw.kafka.downlink;

import java.util.regex.Pattern;

/**
 * The name of a node's downlink topic, made from a template in which {@code {node}} stands for the node id, e.g.
 * {@code device.downlink.{node}}. Both the gateway's consumer and {@code DownlinkClient} resolve it the same way.
 */
public final class TopicTemplate {
    public static final String NODE = "{node}";
    public static final String DEFAULT = "device.downlink.{node}";
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final String template;

    private TopicTemplate(String template) {
        this.template = template;
    }

    /** @throws IllegalArgumentException when the template has no {@code {node}} */
    public static TopicTemplate of(String template) {
        if (template == null || !template.contains(NODE)) {
            throw new IllegalArgumentException("has no " + NODE + ": every node would read the same topic");
        }
        return new TopicTemplate(template);
    }

    /** @throws IllegalArgumentException when the resulting name is not a legal Kafka topic name */
    public String topicFor(String nodeId) {
        String topic = template.replace(NODE, nodeId);
        if (!LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("makes '" + topic + "' for node '" + nodeId
                    + "', which is not a Kafka topic name (1 to 249 letters, digits, '.', '_' or '-')");
        }
        return topic;
    }

    @Override
    public String toString() {
        return template;
    }
}
