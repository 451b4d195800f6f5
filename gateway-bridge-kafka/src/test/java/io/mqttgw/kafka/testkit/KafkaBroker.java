package io.mqttgw.kafka.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node KRaft Kafka broker in a child JVM, so a test can stop it (SIGKILL) and start it again on the
 * same data, or freeze it (SIGSTOP) and thaw it. Listens on 127.0.0.1 ports picked at start (or given, for a
 * benchmark's cluster); logs and the child's pid ({@code broker.pid}) go to its directory. Started once per test
 * class: about 10 s.
 */
public final class KafkaBroker implements AutoCloseable {
    private final Path dir;
    private final int nodeId;
    private final int port;
    private final int controllerPort;
    /** controller.quorum.voters; null: this node alone. */
    private String voters;
    /** Replication factor of the internal topics, and of topics {@link #createTopics} makes. */
    private short replication = 1;
    private Map<String, String> extraConfig = Map.of();
    private List<String> jvmOptions = TEST_JVM_OPTIONS;
    private Process process;

    /** A test broker's JVM: small, and quick to start rather than fast once warm. */
    static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    KafkaBroker(Path dir, int nodeId) throws IOException {
        this(dir, nodeId, freePort(), freePort());
    }

    /** A broker on fixed 127.0.0.1 ports (a benchmark's cluster, whose ports a script names). */
    KafkaBroker(Path dir, int nodeId, int port, int controllerPort) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.nodeId = nodeId;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    public static KafkaBroker start(Path dir) throws Exception {
        KafkaBroker broker = new KafkaBroker(dir, 1);
        broker.format(Uuid.randomUuid().toString());
        broker.launch();
        return broker;
    }

    /** Makes this node one of a cluster of {@code voters} (combined broker and controller nodes). */
    void joinCluster(String voters, short replication, Map<String, String> extraConfig) {
        this.voters = voters;
        this.replication = replication;
        this.extraConfig = extraConfig;
    }

    /** Replaces the child JVM's options ({@link #TEST_JVM_OPTIONS}); takes effect at the next start. */
    void jvmOptions(List<String> options) {
        this.jvmOptions = List.copyOf(options);
    }

    int nodeId() {
        return nodeId;
    }

    int controllerPort() {
        return controllerPort;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    private Path config() throws IOException {
        Path file = dir.resolve("server.properties");
        if (!Files.exists(file)) {
            Properties p = new Properties();
            p.put("process.roles", "broker,controller");
            p.put("node.id", Integer.toString(nodeId));
            p.put("controller.quorum.voters", voters != null ? voters : nodeId + "@127.0.0.1:" + controllerPort);
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("log.dirs", dir.resolve("data").toString());
            p.put("num.partitions", "3");
            p.put("auto.create.topics.enable", "false");
            String rf = Short.toString(replication);
            p.put("offsets.topic.replication.factor", rf);
            p.put("transaction.state.log.replication.factor", rf);
            p.put("transaction.state.log.min.isr", "1");
            p.put("share.coordinator.state.topic.replication.factor", rf);
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.putAll(extraConfig);
            try (var out = Files.newBufferedWriter(file)) {
                p.store(out, "test broker");
            }
        }
        return file;
    }

    void format(String clusterId) throws Exception {
        Process p = java("kafka.tools.StorageTool", "format", "-t", clusterId, "-c",
                config().toString()).redirectOutput(dir.resolve("format.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("kafka storage format failed: "
                    + Files.readString(dir.resolve("format.log")));
        }
    }

    private void launch() throws Exception {
        spawn();
        awaitReady();
    }

    /** Starts the broker process without waiting for it (the nodes of a cluster wait for each other). */
    void spawn() throws Exception {
        process = java("kafka.Kafka", config().toString())
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile())).start();
        // for whoever must stop the child when this JVM cannot (a benchmark script's cleanup after a SIGKILL)
        Files.writeString(dir.resolve("broker.pid"), process.pid() + "\n");
    }

    void awaitReady() throws Exception {
        awaitReady(60);
    }

    void awaitReady(int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!ready()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("kafka broker exited: " + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("kafka broker not ready in " + seconds + " s: " + tail());
            }
            Thread.sleep(200);
        }
    }

    /** Ready when an admin client can list the cluster's nodes. */
    private boolean ready() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        } catch (IOException e) {
            return false;
        }
        try (Admin admin = admin()) {
            return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
        } catch (Exception e) {
            return false;
        }
    }

    String tail() throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("broker.log"));
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    private ProcessBuilder java(String mainClass, String... args) {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dlog4j2.configurationFile=" + writeLogConfig(), "-cp", classpath, mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).directory(dir.toFile());
    }

    private String writeLogConfig() {
        Path file = dir.resolve("log4j2-broker.xml");
        try {
            Files.writeString(file,
                    "<Configuration status=\"WARN\"><Appenders><Console name=\"c\" target=\"SYSTEM_OUT\">"
                    + "<PatternLayout pattern=\"%d %-5level %c{1} %msg%n\"/></Console></Appenders>"
                    + "<Loggers><Root level=\"WARN\"><AppenderRef ref=\"c\"/></Root></Loggers></Configuration>");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return file.toString();
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                        10000));
    }

    public void createTopics(String... names) throws Exception {
        try (Admin admin = admin()) {
            List<NewTopic> topics = new ArrayList<>();
            for (String n : names) {
                topics.add(new NewTopic(n, 3, replication));
            }
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Freezes the broker process (SIGSTOP): connections stay open, nothing is answered. */
    public void freeze() throws Exception {
        signal("STOP");
    }

    public void thaw() throws Exception {
        signal("CONT");
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** Kills the broker (SIGKILL), as a crash or an unplanned stop would. */
    public void kill() throws Exception {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Stops the broker as an operator would (SIGTERM: controlled shutdown, logs flushed) and waits for it. */
    public void stop() throws Exception {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("broker did not stop within 60 s of SIGTERM");
        }
    }

    /** Starts the broker again on the same data and ports. */
    public void restart() throws Exception {
        launch();
    }

    private void signal(String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + name + " failed");
        }
    }

    @Override
    public void close() throws IOException {
        if (process != null && process.isAlive()) {
            // a frozen process must be thawed to die
            new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start();
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

}
