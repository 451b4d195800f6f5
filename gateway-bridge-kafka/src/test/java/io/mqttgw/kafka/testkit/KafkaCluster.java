package io.mqttgw.kafka.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;

/**
 * A real KRaft cluster of {@code n} combined broker-and-controller nodes, each a child JVM ({@link KafkaBroker}), so a
 * test can kill one (SIGKILL) while the others keep the quorum and take over its partitions. Started once per test
 * class; the nodes start in parallel (about 15-25 s for three on a loaded 2-core machine).
 */
public final class KafkaCluster implements AutoCloseable {
    private final List<KafkaBroker> nodes;

    private KafkaCluster(List<KafkaBroker> nodes) {
        this.nodes = nodes;
    }

    public static KafkaCluster start(Path dir, int n) throws Exception {
        return start(dir, n, Map.of());
    }

    /** @param brokerConfig broker properties on top of the test defaults, for every node */
    public static KafkaCluster start(Path dir, int n, Map<String, String> brokerConfig) throws Exception {
        return start(dir, n, brokerConfig, 0, KafkaBroker.TEST_JVM_OPTIONS);
    }

    /**
     * @param portBase   0: ephemeral ports; else node {@code i} (1 to n) listens on {@code portBase + i - 1} and its
     *                   controller on {@code portBase + n + i - 1}
     * @param jvmOptions the options of every node's JVM
     */
    public static KafkaCluster start(Path dir, int n, Map<String, String> brokerConfig, int portBase,
                                     List<String> jvmOptions) throws Exception {
        List<KafkaBroker> nodes = new ArrayList<>();
        KafkaCluster cluster = new KafkaCluster(nodes);
        try {
            for (int id = 1; id <= n; id++) {
                Path nodeDir = dir.resolve("node-" + id);
                KafkaBroker b = portBase == 0 ? new KafkaBroker(nodeDir, id)
                        : new KafkaBroker(nodeDir, id, portBase + id - 1, portBase + n + id - 1);
                b.jvmOptions(jvmOptions);
                nodes.add(b);
            }
            String voters = nodes.stream().map(b -> b.nodeId() + "@127.0.0.1:" + b.controllerPort())
                    .collect(Collectors.joining(","));
            String clusterId = Uuid.randomUuid().toString();
            for (KafkaBroker b : nodes) {
                b.joinCluster(voters, (short) Math.min(n, 3), brokerConfig);
                b.format(clusterId);
            }
            for (KafkaBroker b : nodes) {
                b.spawn();
            }
            // three JVMs start at once on a loaded 2-core machine: the quorum can take a while to form
            for (KafkaBroker b : nodes) {
                b.awaitReady(120);
            }
            return cluster;
        } catch (Exception e) {
            StringBuilder logs = new StringBuilder(e.getMessage() == null ? e.toString() : e.getMessage());
            for (KafkaBroker b : nodes) {
                logs.append("\n--- node ").append(b.nodeId()).append(b.alive() ? " (running)" : " (exited)")
                        .append(":\n");
                try {
                    logs.append(b.tail());
                } catch (IOException | RuntimeException ignored) {
                    logs.append("(no log)");
                }
            }
            cluster.close();
            throw new IllegalStateException("kafka cluster did not start: " + logs, e);
        }
    }

    public String bootstrapServers() {
        return nodes.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                15000));
    }

    /** A topic replicated on every node (at most 3) that accepts an acks=all write only with {@code minIsr} copies. */
    public void createTopic(String name, int partitions, int minIsr) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) Math.min(nodes.size(), 3))
                    .configs(Map.of("min.insync.replicas", Integer.toString(minIsr))))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The node id that leads {@code partition} of {@code topic}, or -1 while none does. */
    public int leaderOf(String topic, int partition) throws Exception {
        try (Admin admin = admin()) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(15, TimeUnit.SECONDS)
                    .get(topic);
            var leader = d.partitions().get(partition).leader();
            return leader == null ? -1 : leader.id();
        }
    }

    /** Freezes node {@code nodeId} (SIGSTOP): its connections stay open, it neither fetches nor answers. */
    public void freeze(int nodeId) throws Exception {
        node(nodeId).freeze();
    }

    public void thaw(int nodeId) throws Exception {
        node(nodeId).thaw();
    }

    /** The ids of the nodes, 1 to n. */
    public List<Integer> nodeIds() {
        return nodes.stream().map(KafkaBroker::nodeId).toList();
    }

    private KafkaBroker node(int nodeId) {
        return nodes.stream().filter(b -> b.nodeId() == nodeId).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + nodeId));
    }

    /** Kills node {@code nodeId} (SIGKILL): whatever it did not replicate is gone with it. */
    public void kill(int nodeId) throws Exception {
        node(nodeId).kill();
    }

    @Override
    public void close() throws Exception {
        for (KafkaBroker b : nodes) {
            b.close();
        }
    }
}
