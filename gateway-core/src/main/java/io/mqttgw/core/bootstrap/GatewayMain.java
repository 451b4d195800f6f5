package io.mqttgw.core.bootstrap;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.admin.OperatorCredentials;
import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.tls.CertificateIdentities;
import io.mqttgw.core.tls.SslContextStore;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Command line: {@code run --config FILE} starts a node and runs until SIGTERM/SIGINT, then shuts down gracefully;
 * {@code check-config --config FILE} validates a configuration, including that the TLS files make a context, and
 * exits. While running, {@code SIGHUP} reloads the config file (the keys that may change at runtime). A bad
 * configuration exits with status 2 and one line naming the key, the value and what is allowed. After
 * SIGTERM the JVM exits with 143 (128 + 15) once the graceful shutdown is done, as every JVM does on a signal.
 * SIGTERM drains the node as {@code POST /drain} does ({@link Gateway#drain}); a node that drained through the
 * operator API exits with 0. {@code drain} and {@code clients} are clients of a running node's operator API.
 */
public final class GatewayMain {
    private GatewayMain() {
    }

    @io.mqttgw.core.SuppressForbidden(reason = "the command line's own output and errors")
    public static void main(String[] args) {
        // this main stops log4j itself after the graceful shutdown (flushLogs); log4j's own hook would race it and
        // drop the shutdown's lines. Set before the first logger exists; an explicit setting wins.
        if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || "--help".equals(args[0]) || "-h".equals(args[0])) {
            usage(out);
            return args.length == 0 ? 1 : 0;
        }
        String command = args[0];
        if ("clients".equals(command)) {
            // a client of a running node's operator API: no configuration, no node
            return io.mqttgw.core.cli.ClientsCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length),
                    new java.io.PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true),
                    new java.io.PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        }
        if ("drain".equals(command)) {
            return io.mqttgw.core.cli.DrainCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length),
                    new java.io.PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true),
                    new java.io.PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        }
        if ("routes".equals(command)) {
            if (args.length < 2 || !"verify".equals(args[1])) {
                err.println("usage: gateway routes verify [--repair] --admin-url URL --token-file FILE");
                return 1;
            }
            return io.mqttgw.core.cli.RoutesVerifyCommand.run(java.util.Arrays.copyOfRange(args, 2, args.length),
                    new java.io.PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true),
                    new java.io.PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        }
        Path file = null;
        for (int i = 1; i < args.length; i++) {
            if ("--config".equals(args[i]) && i + 1 < args.length) {
                file = Path.of(args[++i]);
            } else {
                err.println("unknown argument: " + args[i]);
                usage(err);
                return 1;
            }
        }
        if (file != null && !Files.isRegularFile(file)) {
            err.println("configuration file not found: " + file.toAbsolutePath());
            return 2;
        }
        Providers providers = Providers.discover();
        GatewayConfig config;
        try {
            config = Gateway.configure(file, providers, System.getenv(), System.getProperties());
        } catch (ConfigException e) {
            err.println("configuration error: " + e.getMessage());
            return 2;
        }
        switch (command) {
            case "check-config" -> {
                if (config.tls().enabled()) {
                    try {
                        // the files must make a context, not only exist: catches a wrong key, a bad PEM, a CA typo
                        SslContextStore tls = new SslContextStore(config.tls(),
                                new CertificateIdentities(config.identity().source()),
                                new GatewayMetrics(new SimpleMeterRegistry()));
                        String warning = tls.serverCertificateWarning();
                        tls.close();
                        if (warning != null) {
                            // still valid, so the configuration is OK; but the day it expires, every device is refused
                            err.println("warning: " + warning);
                        }
                    } catch (IllegalStateException e) {
                        err.println("configuration error: " + e.getMessage());
                        return 2;
                    }
                }
                if (config.admin().enabled() && config.admin().operations().enabled()) {
                    try {
                        // the operator token file and TLS files as startup reads them
                        String warning = OperatorCredentials.load(config.admin().operations())
                                .serverCertificateWarning();
                        if (warning != null) {
                            err.println("warning: " + warning);
                        }
                    } catch (ConfigException e) {
                        err.println("configuration error: " + e.getMessage());
                        return 2;
                    }
                }
                out.println("configuration OK: node " + config.nodeId() + ", tls listener "
                        + (config.tls().enabled() ? config.tls().bind() + ":" + config.tls().port() : "off")
                        + ", tcp listener "
                        + (config.tcp().enabled() ? config.tcp().bind() + ":" + config.tcp().port() : "off"));
                return 0;
            }
            case "run" -> {
                return runUntilSignalled(config, providers, file, err);
            }
            default -> {
                err.println("unknown command: " + command);
                usage(err);
                return 1;
            }
        }
    }

    private static int runUntilSignalled(GatewayConfig config, Providers providers, Path file, PrintStream err) {
        Gateway gateway;
        try {
            gateway = file == null ? Gateway.start(config, providers)
                    : Gateway.start(config, providers, file, System.getenv(), System.getProperties());
        } catch (ConfigException e) {
            err.println("configuration error: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            err.println("cannot start: " + e.getMessage());
            return 3;
        }
        if (file != null) {
            reloadOnSighup(gateway);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                gateway.close();
            } finally {
                stopped.countDown();
                flushLogs();
            }
        }, "gateway-shutdown"));
        // a drain through the operator API (POST /drain) closes the node itself; the process then exits with 0
        gateway.terminated().thenRun(stopped::countDown);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /**
     * {@code SIGHUP} re-reads the config file ({@link Gateway#reload}); the outcome is logged by the reload. The JDK's
     * signal thread only hands the work over. Where the JVM does not offer SIGHUP (or reserves it), says so once; so
     * it does when the process was started with SIGHUP ignored (under {@code nohup}): the JVM then keeps it ignored.
     */
    @io.mqttgw.core.SuppressForbidden(reason = "the JDK offers SIGHUP only through sun.misc.Signal")
    static boolean reloadOnSighup(Gateway gateway) {
        try {
            sun.misc.SignalHandler before = sun.misc.Signal.handle(new sun.misc.Signal("HUP"),
                    signal -> gateway.reload("signal:SIGHUP"));
            if (before == sun.misc.SignalHandler.SIG_IGN) {
                org.slf4j.LoggerFactory.getLogger(GatewayMain.class).warn("SIGHUP was ignored when this process "
                        + "started (nohup?) and stays ignored: reload with POST /config/reload, or start the "
                        + "gateway without nohup (systemd's ExecReload sends SIGHUP)");
                return false;
            }
            return true;
        } catch (IllegalArgumentException | LinkageError e) {
            org.slf4j.LoggerFactory.getLogger(GatewayMain.class).warn("SIGHUP reload unavailable here ({}); use "
                    + "POST /config/reload", e.toString());
            return false;
        }
    }

    /**
     * Stops log4j after the graceful shutdown so its last lines are written. The distribution turns log4j's own
     * shutdown hook off (it would race this one and drop the shutdown's lines); core only knows the SLF4J API, so
     * log4j is reached by name when it is there.
     */
    private static void flushLogs() {
        try {
            Class.forName("org.apache.logging.log4j.LogManager").getMethod("shutdown").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            // another SLF4J backend, or none: nothing to flush
        }
    }

    private static void usage(PrintStream out) {
        out.println("usage: gateway run --config FILE        start a node (stop with SIGTERM or Ctrl-C)");
        out.println("       gateway check-config --config FILE   validate a configuration and exit");
        out.println("       gateway clients list|show|kick ...  a running node's clients (gateway clients --help)");
        out.println("       gateway drain [--no-exit] ...      drain a running node as SIGTERM does");
        out.println("       gateway routes verify [--repair] ...  check the route table against a node's sessions");
        out.println("Every key may be overridden by MQTTGW_<KEY> or -Dmqttgw.<key>; see README.md.");
    }
}
