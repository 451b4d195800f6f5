package io.mqttgw.bench.sim.cli;

import io.mqttgw.bench.sim.config.BadArgumentException;
import io.mqttgw.bench.sim.report.HtmlReport;
import io.mqttgw.bench.sim.report.SummaryJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bench compare RUN RUN...}: the headline tables of saved runs side by side in one HTML page, e.g. the same
 * scenario once with {@code --mqtt-version 3.1.1} and once with {@code --mqtt-version 5}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
        description = "Put the headlines of saved runs side by side (e.g. one scenario run with --mqtt-version 3.1.1 "
                + "and again with --mqtt-version 5). Each RUN is a run's --out directory or its summary.json.")
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "2..*", paramLabel = "RUN", description = "run directories (or summary.json files)")
    List<Path> runs;

    @Option(names = "--out", defaultValue = "bench-results/compare.html", paramLabel = "FILE",
            description = "the page to write (default ${DEFAULT-VALUE})")
    Path out;

    @Override
    public Integer call() throws IOException {
        List<String> names = new ArrayList<>();
        List<Map<String, Object>> summaries = new ArrayList<>();
        for (Path run : runs) {
            Path file = Files.isDirectory(run) ? run.resolve("summary.json") : run;
            if (!Files.isReadable(file)) {
                throw new BadArgumentException("RUN '" + run + "' has no readable summary.json; give a bench run's "
                        + "--out directory");
            }
            Path dir = file.toAbsolutePath().getParent();
            names.add(dir == null || dir.getFileName() == null ? file.toString() : dir.getFileName().toString());
            summaries.add(SummaryJson.read(file));
        }
        if (out.toAbsolutePath().getParent() != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
        }
        Files.writeString(out, HtmlReport.compare(names, summaries));
        spec.commandLine().getOut().println("comparison: " + out);
        spec.commandLine().getOut().flush();
        return BenchCommand.GOAL_MET;
    }
}
