package io.mqttgw.bench.sim.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.Scenario;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every {@code bench} command line in the scripts (gateway-bench/bin), the README and BENCHMARKS.md parses with the
 * current command line: the options they use still exist and their values still convert. Shell variables are
 * replaced by a valid value of the option's type, array expansions left out; {@code a|b} alternatives in the docs by
 * the first.
 */
class DocumentedCommandsTest {
    private static final Pattern COMMAND = Pattern.compile(
            "(?:^|[\\s(:])(?:\"\\$BENCH\"|\\$BENCH|bench)\\s+(connect|publish|storm|soak|fleet|pki)\\s+(--[^#`\\n)]*)");
    private static final Path MODULE = Path.of("").toAbsolutePath();

    @Test
    void everyDocumentedAndScriptedBenchCommandParses() throws IOException {
        List<Path> files = new ArrayList<>();
        try (var bin = Files.list(MODULE.resolve("bin"))) {
            bin.forEach(files::add);
        }
        files.add(MODULE.getParent().resolve("README.md"));
        files.add(MODULE.getParent().resolve("BENCHMARKS.md"));
        int checked = 0;
        for (Path file : files) {
            String text = Files.readString(file).replaceAll("\\\\\\n\\s*", " ").replaceAll("\\$\\([^)]*\\)", " ");
            Matcher m = COMMAND.matcher(text);
            while (m.find()) {
                String rest = m.group(2);
                if (rest.contains("...") || rest.contains("(same options")) {
                    continue;
                }
                List<String> args = arguments(m.group(1), rest);
                String where = file.getFileName() + ": bench " + m.group(1) + " " + rest.trim();
                if (m.group(1).equals("pki")) {
                    StringWriter err = new StringWriter();
                    CommandLine cl = BenchCommand.commandLine(new PrintWriter(new StringWriter()),
                            new PrintWriter(err));
                    args.add(0, "pki");
                    assertDoesNotThrow(() -> cl.parseArgs(args.toArray(String[]::new)), where);
                } else {
                    assertDoesNotThrow(() -> BenchCommand.parseScenario(
                            Scenario.valueOf(m.group(1).toUpperCase(Locale.ROOT)), args), where + " -> " + args);
                }
                checked++;
            }
        }
        assertTrue(checked >= 12, "found only " + checked + " bench commands");
    }

    /** The options of one command line, shell syntax and doc placeholders replaced by valid values. */
    private static List<String> arguments(String command, String rest) {
        String cleaned = rest.replaceAll("\\s(?:\\d?>|&>|\\|\\||&&|;|&)[\\s\\S]*$", " ")
                .replaceAll("\\s[0-9]?>.*$", " ");
        List<String> args = new ArrayList<>();
        String option = null;
        for (String token : cleaned.trim().split("\\s+")) {
            if (token.isEmpty()) {
                continue;
            }
            if (token.matches("\"?\\$\\{\\w+\\[@]}\"?")) {
                // an array expansion ("${ARGS[@]}") adds whole options the script chooses at run time
                continue;
            }
            if (token.startsWith("--")) {
                option = token;
                args.add(token);
                continue;
            }
            String value = token.replace("\"", "");
            if (value.contains("$") || value.contains("<")) {
                value = sample(command, option);
            } else if (value.contains("|")) {
                value = value.substring(0, value.indexOf('|'));
            }
            args.add(value);
        }
        return args;
    }

    /** A valid value for {@code option}, from its type (shell variables are set at run time). */
    private static String sample(String command, String option) {
        if (option.equals("--admin")) {
            return "127.0.0.1:9090";
        }
        if (option.equals("--mqtt-version")) {
            return "5";
        }
        if (option.equals("--nodes")) {
            return "127.0.0.1:18831/18091,127.0.0.1:18832/18092";
        }
        if (option.equals("--node-pids")) {
            return "101,102";
        }
        if (option.equals("--balance")) {
            return "hash";
        }
        if (option.equals("--action")) {
            return "kill";
        }
        CommandLine cl = BenchCommand.commandLine(new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
        OptionSpec spec = cl.getSubcommands().get(command).getCommandSpec().findOption(option);
        if (spec == null) {
            return "x";
        }
        Class<?> type = spec.type();
        if (type == Duration.class) {
            return "1s";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "1";
        }
        if (type == double.class) {
            return "0.5";
        }
        if (type == boolean.class) {
            return "true";
        }
        if (spec.longestName().equals("--source")) {
            return "127.0.0.2-127.0.0.3";
        }
        return "x";
    }
}
