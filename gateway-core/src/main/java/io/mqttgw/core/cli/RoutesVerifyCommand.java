package io.mqttgw.core.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gateway routes verify [--repair]}: asks a running node to compare the route table with its live sessions
 * ({@code POST /routes/verify} of the operator API) and prints the answer. Exit statuses as {@code gateway clients},
 * and 6 when differences remain (found, and not all repaired). Runs on the calling thread; one request.
 */
@Command(name = "verify", mixinStandardHelpOptions = true, versionProvider = ClientsCommand.Version.class,
        description = "Compare the route table with a node's live sessions: routes missing for its devices, routes "
                + "naming it for devices it does not hold or with another epoch, and routes naming dead nodes. "
                + "Prints the node's JSON answer.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:no differences (or every one repaired)", "1:wrong usage, or the token file cannot be read",
                "4:the gateway refused (unauthorized, invalid input, a check already running); its reason is printed",
                "5:the admin endpoint could not be reached, timed out or failed",
                "6:differences remain; they are printed"})
public final class RoutesVerifyCommand implements Callable<Integer> {
    /** Differences remain after the check. */
    static final int DIFFERENCES = 6;
    private static final Pattern FOUND = Pattern.compile("\"found\":(\\d+)");
    private static final Pattern REPAIRED = Pattern.compile("\"repaired\":(\\d+)");

    @CommandLine.Mixin
    ClientsCommand.Connection connection = new ClientsCommand.Connection();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--repair", description = "Write the missing routes and delete the stale ones (fenced: a route "
            + "rewritten meanwhile stays)")
    boolean repair;

    /** Runs {@code args} (after the words {@code routes verify}); output to {@code out}, messages to {@code err}. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return ClientsCommand.execute(new RoutesVerifyCommand(), "gateway routes verify", args, out, err,
                System.getenv());
    }

    @Override
    public Integer call() throws java.io.IOException, InterruptedException {
        String body = OperatorApiClient.request(connection, "POST",
                repair ? "/routes/verify?repair=true" : "/routes/verify");
        spec.commandLine().getOut().print(body);
        return remaining(body) > 0 ? DIFFERENCES : 0;
    }

    /** Differences found and not repaired, as the answer states them. */
    static long remaining(String body) {
        return number(FOUND, body) - number(REPAIRED, body);
    }

    private static long number(Pattern p, String body) {
        Matcher m = p.matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
