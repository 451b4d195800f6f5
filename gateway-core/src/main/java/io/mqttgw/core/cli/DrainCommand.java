package io.mqttgw.core.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gateway drain}: asks a running node to leave as SIGTERM would ({@code POST /drain} of the operator API) and
 * prints what it will do. Exit statuses as {@code gateway clients}: 0 draining, 1 wrong usage or an unreadable token
 * file, 4 refused (its reason is printed), 5 unreachable. Runs on the calling thread; one request.
 */
@Command(name = "drain", mixinStandardHelpOptions = true, versionProvider = ClientsCommand.Version.class,
        description = "Drain a gateway node: /health/ready answers 503 while it still accepts devices for "
                + "shutdown.ready-grace, then its devices are closed at shutdown.drain-rate (MQTT 5.0: DISCONNECT "
                + "0x8B, or 0x9C with shutdown.server-reference) and the node exits (status 0).",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the node is draining", "1:wrong usage, or the token file cannot be read",
                "4:the gateway refused (unauthorized, invalid input); its reason is printed",
                "5:the admin endpoint could not be reached, timed out or failed"})
public final class DrainCommand implements Callable<Integer> {
    @CommandLine.Mixin
    ClientsCommand.Connection connection = new ClientsCommand.Connection();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--no-exit", description = "Keep the node up once drained (not ready, ports closed) until it is "
            + "stopped, instead of exiting")
    boolean noExit;

    /** Runs {@code args} (after the word {@code drain}); output to {@code out}, messages to {@code err}. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return ClientsCommand.execute(new DrainCommand(), "gateway drain", args, out, err, System.getenv());
    }

    @Override
    public Integer call() throws java.io.IOException, InterruptedException {
        String body = OperatorApiClient.request(connection, "POST", noExit ? "/drain?exit=false" : "/drain");
        spec.commandLine().getOut().print(body);
        return 0;
    }
}
