package io.mqttgw.routing.testkit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.embedded.RedisExecProvider;

/**
 * A real redis-server for a test, on 127.0.0.1 and a free port, without persistence, so a restart comes back empty
 * as after a crash, unless the test wrote a snapshot with {@link #saveSnapshot()}: a restart then loads it, as a Redis
 * with RDB persistence does. The binary is the one org.signal:embedded-redis ships (7.0.15), or the one named by the
 * system
 * property {@code mqttgw.test.redis-server} (e.g. {@code /usr/bin/redis-server} from Debian's package). Can be
 * stopped and started again on the same port.
 */
public final class RedisTestServer implements AutoCloseable {
    /** Every process started, killed when the JVM ends: a test JVM stopped half way leaves no redis-server behind. */
    private static final java.util.Set<Process> STARTED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> STARTED.forEach(Process::destroyForcibly),
                "redis-test-servers-stop"));
    }

    private final String binary;
    private final Path dir;
    private final int port;
    /** What comes after the binary on the command line, and the log line that says the process is ready. */
    private final List<String> arguments;
    private final String readyLine;
    private Process process;
    private boolean frozen;

    private RedisTestServer(String binary, Path dir, int port, List<String> arguments, String readyLine) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.arguments = arguments;
        this.readyLine = readyLine;
    }

    public static RedisTestServer start(Path dir) {
        return start(dir, List.of());
    }

    /** A server with more options ({@code --name value} pairs, e.g. {@code --replicaof} or cluster mode). */
    public static RedisTestServer start(Path dir, List<String> options) {
        try {
            Files.createDirectories(dir);
            int port = freePort();
            List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port),
                    "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                    "--loglevel", "notice", "--logfile", ""));
            args.addAll(options);
            RedisTestServer server = new RedisTestServer(binary(), dir, port, List.copyOf(args),
                    "Ready to accept connections");
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server", e);
        }
    }

    /**
     * A Redis Sentinel ({@code redis-server sentinel.conf --sentinel}) with the given configuration lines; Sentinel
     * rewrites its file, so it gets one of its own in {@code dir}.
     */
    public static RedisTestServer startSentinel(Path dir, List<String> configLines) {
        try {
            Files.createDirectories(dir);
            int port = freePort();
            List<String> lines = new ArrayList<>(List.of("port " + port, "bind 127.0.0.1", "dir " + dir,
                    "logfile \"\""));
            lines.addAll(configLines);
            Path conf = dir.resolve("sentinel.conf");
            Files.write(conf, lines, StandardCharsets.UTF_8);
            RedisTestServer server = new RedisTestServer(binary(), dir, port,
                    List.of(conf.toString(), "--sentinel"), "+monitor master");
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server --sentinel", e);
        }
    }

    private static String binary() throws IOException {
        String override = System.getProperty("mqttgw.test.redis-server", "");
        return override.isEmpty() ? RedisExecProvider.defaultProvider().get().getAbsolutePath() : override;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Starts (again) on the same port; returns once it accepts connections. */
    public synchronized void start() {
        if (process != null) {
            return;
        }
        try {
            List<String> command = new ArrayList<>();
            command.add(binary);
            command.addAll(arguments);
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.directory(new File(dir.toString()));
            Process p = pb.start();
            STARTED.add(p);
            CountDownLatch ready = new CountDownLatch(1);
            StringBuilder output = new StringBuilder();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        synchronized (output) {
                            output.append(line).append('\n');
                        }
                        if (line.contains(readyLine)) {
                            ready.countDown();
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            }, "redis-server-" + port + "-output");
            reader.setDaemon(true);
            reader.start();
            if (!ready.await(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                synchronized (output) {
                    throw new IllegalStateException("redis-server did not start on port " + port + ":\n" + output);
                }
            }
            process = p;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + binary, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Started, alive and not frozen: it answers. */
    public synchronized boolean running() {
        return process != null && process.isAlive() && !frozen;
    }

    /**
     * Freezes the server (SIGSTOP) as a hung host or a cut network looks to its clients: connections stay open and
     * nothing answers, so a client waits for its timeout rather than seeing the connection close.
     * {@link #stop()} still kills it.
     */
    public synchronized void freeze() {
        if (process == null) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-STOP", Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -STOP " + process.pid() + " failed");
            }
            frozen = true;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills the server (SIGKILL: nothing is saved, open connections break). */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        STARTED.remove(process);
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
        frozen = false;
    }

    /**
     * Writes the data set to {@code dump.rdb} in the server's directory (SAVE); the next {@link #start()} loads it,
     * dropping the keys whose time to live ran out meanwhile, until {@link #deleteSnapshot()}.
     */
    public void saveSnapshot() {
        expectOk("SAVE");
    }

    /**
     * Holds every write (scripts included) for {@code pause} and runs it afterwards (CLIENT PAUSE ... WRITE): a client
     * whose timeout is shorter sees its write fail although Redis applies it later.
     */
    public void pauseWrites(Duration pause) {
        expectOk("CLIENT PAUSE " + pause.toMillis() + " WRITE");
    }

    /**
     * Holds every command of every client for {@code pause} (CLIENT PAUSE ... ALL), then answers them: a server that
     * stalls and comes back with its data, as a host that froze for a while does.
     */
    public void pauseAll(Duration pause) {
        expectOk("CLIENT PAUSE " + pause.toMillis() + " ALL");
    }

    private void expectOk(String command) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            if (!"+OK".equals(answer)) {
                throw new IllegalStateException(command + " answered " + answer);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot send " + command + " to port " + port, e);
        }
    }

    /** Removes the snapshot, so the next start comes back empty again. */
    public void deleteSnapshot() {
        try {
            Files.deleteIfExists(dir.resolve("dump.rdb"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public int port() {
        return port;
    }

    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        stop();
    }
}
