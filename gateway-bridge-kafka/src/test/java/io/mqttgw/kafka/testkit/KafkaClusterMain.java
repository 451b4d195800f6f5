package io.mqttgw.kafka.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Runs a {@link KafkaCluster} outside the tests, for benchmark scripts ({@code gateway-bench/bin/uplink-acks.sh}):
 * formats and starts the nodes under DIR, creates one topic replicated on every node (at most 3), writes the
 * bootstrap servers to {@code DIR/bootstrap.servers} once the topic exists (and prints them), then runs until its
 * standard input ends (a script holds it open, so the cluster goes when the script goes, even after a SIGKILL) or it
 * gets SIGTERM / SIGINT, and stops the nodes. Each node's pid is in {@code DIR/node-N/broker.pid}, for a cleanup
 * that must stop them without this JVM.
 *
 * <pre>
 * java -cp KAFKA_MODULE_TEST_CLASS_PATH io.mqttgw.kafka.testkit.KafkaClusterMain DIR [--nodes 3] [--port-base 0]
 *     [--topic device.uplink] [--partitions 3] [--min-isr 2] [--jvm-options "-Xmx1g -Xms1g -XX:+UseG1GC"]
 * </pre>
 * {@code --port-base 0} picks ephemeral ports; else node i listens on base + i - 1 and its controller on
 * base + nodes + i - 1. Exit status: 0 stopped, 1 the cluster did not start, 2 wrong usage.
 *
 * <p>Main thread only; the shutdown hook stops the nodes.
 */
public final class KafkaClusterMain {
    private KafkaClusterMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = null;
        int nodes = 3;
        int portBase = 0;
        String topic = "device.uplink";
        int partitions = 3;
        int minIsr = 2;
        List<String> jvm = List.of("-Xmx1g", "-Xms1g", "-XX:+UseG1GC");
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (!a.startsWith("--")) {
                    dir = Path.of(a).toAbsolutePath();
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--nodes" -> nodes = Integer.parseInt(v);
                    case "--port-base" -> portBase = Integer.parseInt(v);
                    case "--topic" -> topic = v;
                    case "--partitions" -> partitions = Integer.parseInt(v);
                    case "--min-isr" -> minIsr = Integer.parseInt(v);
                    case "--jvm-options" -> jvm = Arrays.stream(v.trim().split("\\s+")).filter(s -> !s.isEmpty())
                            .toList();
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (dir == null || nodes < 1 || minIsr < 1 || minIsr > Math.min(nodes, 3) || partitions < 1
                    || portBase < 0 || portBase > 65535 - 2 * nodes) {
                throw new IllegalArgumentException("need DIR, nodes >= 1, 1 <= min-isr <= min(nodes, 3), "
                        + "partitions >= 1 and a port base in 0 to 65535 - 2 x nodes");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("kafka-cluster: " + e.getMessage());
            System.exit(2);
        }
        KafkaCluster cluster;
        try {
            cluster = KafkaCluster.start(dir, nodes, Map.of(), portBase, jvm);
        } catch (Exception e) {
            System.err.println("kafka-cluster: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                cluster.close();
            } catch (Exception e) {
                System.err.println("kafka-cluster: stopping the nodes failed: " + e);
            }
        }, "kafka-cluster-stop"));
        try {
            cluster.createTopic(topic, partitions, minIsr);
        } catch (Exception e) {
            System.err.println("kafka-cluster: topic " + topic + " not created: " + e);
            System.exit(1);
        }
        // written last and renamed into place: a script that sees the file may use the topic
        Path tmp = dir.resolve("bootstrap.servers.tmp");
        Files.writeString(tmp, cluster.bootstrapServers() + "\n");
        Files.move(tmp, dir.resolve("bootstrap.servers"), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        System.out.println("bootstrap.servers=" + cluster.bootstrapServers() + " topic=" + topic + " partitions="
                + partitions + " replication=" + Math.min(nodes, 3) + " min.insync.replicas=" + minIsr);
        System.out.flush();
        byte[] sink = new byte[256];
        while (System.in.read(sink) >= 0) {
            // anything written is ignored: only the end of the input matters
        }
        System.exit(0);
    }
}
