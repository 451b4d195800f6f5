package io.mqttgw.core.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gateway clients list|show|kick}: the operator API of a running node (README "Operator API") from the
 * command line. Exit statuses: 0 done, 1 wrong usage or an unreadable token, certificate or config file, 4 the
 * gateway refused (401, 404, 400, ...; its reason is printed), 5 the admin endpoint could not be reached, timed out
 * or failed (5xx, a refused TLS handshake).
 * Runs on the calling thread; one HTTP request at a time.
 */
@Command(name = "clients", mixinStandardHelpOptions = true, versionProvider = ClientsCommand.Version.class,
        description = "List, show and kick the devices connected to a gateway node, through its operator API.",
        subcommands = {ClientsCommand.ListClients.class, ClientsCommand.Show.class, ClientsCommand.Kick.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:done", "1:wrong usage, or the token, certificate, key or --cli-config file cannot be read",
                "4:the gateway refused (not connected, unauthorized, invalid input); its reason is printed",
                "5:the admin endpoint could not be reached, timed out or failed"})
public final class ClientsCommand implements Callable<Integer> {
    static final int USAGE = 1;
    static final int REFUSED = 4;
    static final int UNREACHABLE = 5;
    private static final JsonFactory JSON = new JsonFactory();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Where and as whom to call: shared by the verbs. A value comes from the command line, else from its environment
     * variable, else from the {@code --cli-config} file ({@link CliConfig}), else from the default.
     */
    static final class Connection {
        @Option(names = "--admin-url", paramLabel = "URL", defaultValue = "http://127.0.0.1:9090",
                description = "Operations endpoint of the node (admin.operations.bind/port, or the admin listener "
                        + "when operations share it); https:// for an operations listener with TLS; env "
                        + "GATEWAY_ADMIN_URL. Default: ${DEFAULT-VALUE}")
        String url;

        @Option(names = "--token-file", paramLabel = "FILE",
                description = "File holding the bearer token: the token alone, or id:token as in "
                        + "admin.operations.token-file (the first such line); env GATEWAY_ADMIN_TOKEN_FILE")
        Path tokenFile;

        @Option(names = "--cert", paramLabel = "FILE",
                description = "PEM certificate (chain) of the operator, presented to an operations listener with "
                        + "mutual TLS (admin.operations.tls.*); needs --key; env GATEWAY_ADMIN_CERT")
        Path certFile;

        @Option(names = "--key", paramLabel = "FILE",
                description = "Unencrypted PEM private key of --cert; env GATEWAY_ADMIN_KEY")
        Path keyFile;

        @Option(names = "--ca-file", paramLabel = "FILE",
                description = "PEM CA certificates to trust for the node's HTTPS certificate (instead of the Java "
                        + "trust store); env GATEWAY_ADMIN_CA_FILE")
        Path caFile;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
                description = "Longest wait for an answer; env GATEWAY_ADMIN_TIMEOUT. Default: ${DEFAULT-VALUE}")
        int timeoutSeconds;

        @Option(names = "--cli-config", paramLabel = "FILE",
                description = "Properties file with any of the options above as name = value (admin-url, "
                        + "token-file, cert, key, ca-file, timeout; relative paths from the file's directory); "
                        + "env GATEWAY_CLI_CONFIG")
        Path cliConfig;
    }

    /** Thrown to end a verb with an exit status and a message for stderr. */
    static final class Failure extends RuntimeException {
        final int status;

        Failure(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** Runs {@code args} (after the word {@code clients}); output to {@code out}, messages to {@code err}. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return run(args, out, err, System.getenv());
    }

    /** As {@link #run(String[], PrintWriter, PrintWriter)} with the environment variables {@code env}. */
    static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env) {
        return execute(new ClientsCommand(), "gateway clients", args, out, err, env);
    }

    /**
     * Runs a command that calls the operator API ({@code clients}, {@code drain}): its connection options default
     * from {@code env} and {@code --cli-config}, and every failure becomes its exit status with one line naming it.
     */
    static int execute(Object command, String name, String[] args, PrintWriter out, PrintWriter err,
            Map<String, String> env) {
        CliConfig defaults;
        try {
            defaults = CliConfig.of(args, env);
        } catch (Failure e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return e.status;
        }
        CommandLine cl = new CommandLine(command).setCommandName(name);
        cl.setOut(out);
        cl.setErr(err);
        cl.setDefaultValueProvider(defaults);
        cl.setExitCodeExceptionMapper(e -> e instanceof Failure f ? f.status : USAGE);
        cl.setParameterExceptionHandler((e, a) -> {
            err.println(name + ": " + e.getMessage());
            e.getCommandLine().usage(err);
            return USAGE;
        });
        cl.setExecutionExceptionHandler((e, c, parsed) -> {
            err.println(name + ": " + e.getMessage());
            return e instanceof Failure f ? f.status : UNREACHABLE;
        });
        int status = cl.execute(args);
        out.flush();
        err.flush();
        return status;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    /** What every verb has: where and as whom to call, and its own command line (for its output). */
    abstract static class Verb implements Callable<Integer> {
        @CommandLine.Mixin
        Connection connection = new Connection();
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
    }

    /** A verb about one client. */
    abstract static class OneClient extends Verb {
        @Parameters(paramLabel = "CLIENT_ID", description = "The device's client id")
        String clientId;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "List the clients connected to the node, in client-id order, one a line: id, remote "
                    + "address, connected since, proof.")
    static final class ListClients extends Verb {
        @Option(names = "--prefix", paramLabel = "PREFIX", description = "Only client ids starting with PREFIX")
        String prefix = "";

        @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
                description = "Clients a page (1 to 1000). Default: ${DEFAULT-VALUE}")
        int limit;

        @Option(names = "--all", description = "Follow the cursor through every page")
        boolean all;

        @Option(names = "--json", description = "Print the API's JSON pages as they come, one a line")
        boolean json;

        @Override
        public Integer call() throws IOException, InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            String cursor = null;
            do {
                String query = "/clients?limit=" + limit + (prefix.isEmpty() ? "" : "&prefix=" + encode(prefix))
                        + (cursor == null ? "" : "&cursor=" + encode(cursor));
                String body = OperatorApiClient.request(connection, "GET", query);
                if (json) {
                    out.print(body);
                }
                cursor = printPage(body, json ? null : out);
            } while (all && cursor != null);
            if (!all && cursor != null && !json) {
                out.println("# more: --all, or the next page with the API's cursor " + cursor);
            }
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Show one client (node, address, protocol, keepalive, certificate, subscriptions, "
                    + "in-flight counts) as the API's JSON; from the route table when another node holds it.")
    static final class Show extends OneClient {
        @Option(names = "--session", description = "Show the stored persistent session instead (GET /sessions/ID)")
        boolean session;

        @Override
        public Integer call() throws IOException, InterruptedException {
            spec.commandLine().getOut().print(OperatorApiClient.request(connection, "GET",
                    (session ? "/sessions/" : "/clients/") + encode(clientId)));
            return 0;
        }
    }

    @Command(name = "kick", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Close a client's connection (disconnect reason administrative, written to the event log "
                    + "with your token's id). The device may reconnect.")
    static final class Kick extends OneClient {
        @Option(names = "--discard-session", description = "Also discard its persistent session (subscriptions "
                + "and messages kept for it)")
        boolean discardSession;

        @Override
        public Integer call() throws IOException, InterruptedException {
            OperatorApiClient.request(connection, "DELETE", "/clients/" + encode(clientId)
                    + (discardSession ? "?discard-session=true" : ""));
            spec.commandLine().getOut().println("kicked " + clientId + (discardSession ? ", session discarded" : ""));
            return 0;
        }
    }

    private static String encode(String s) {
        // a path segment or query value: '+' for a space would be a literal '+' in a path, so %20
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Prints a page's clients as lines to {@code out} (unless null); answers its next cursor or null. */
    static String printPage(String body, PrintWriter out) throws IOException {
        String next = null;
        try (JsonParser p = JSON.createParser(body)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if ("clients".equals(name) && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        Map<String, String> client = new java.util.HashMap<>();
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String field = p.currentName();
                            p.nextToken();
                            client.put(field, p.getValueAsString());
                            p.skipChildren();
                        }
                        if (out != null) {
                            out.println(String.join("\t", client.get("clientId"), client.get("remoteAddress"),
                                    client.get("connectedSince"), client.get("proof")));
                        }
                    }
                } else if ("nextCursor".equals(name)) {
                    next = value == JsonToken.VALUE_NULL ? null : p.getValueAsString();
                } else {
                    p.skipChildren();
                }
            }
        }
        return next;
    }

    /** The version of the gateway-core jar this runs from (its file name), as the launcher's --version says. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = "unknown";
            try {
                String jar = Path.of(ClientsCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                        .getFileName().toString();
                if (jar.startsWith("gateway-core-") && jar.endsWith(".jar")) {
                    version = jar.substring("gateway-core-".length(), jar.length() - ".jar".length());
                }
            } catch (java.net.URISyntaxException | RuntimeException e) {
                // not from a jar (an IDE, the build's classes): no version to tell
            }
            return new String[] {"mqtt-gateway " + version + " (Java " + Runtime.version() + ")"};
        }
    }
}
