package io.mqttgw.bench.sim.cli;

import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.report.HtmlReport;
import io.mqttgw.bench.sim.scenario.RunResult;
import io.mqttgw.bench.sim.scenario.ScenarioRunner;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** Runs one scenario and writes its summary and report; the exit status says whether the goal was met. */
final class ScenarioRun {
    private ScenarioRun() {
    }

    static int run(BenchOptions options, PrintWriter out, PrintWriter err) throws Exception {
        PrintStream live = new PrintStream(new WriterOutputStream(out), true, StandardCharsets.UTF_8);
        RunResult result = new ScenarioRunner(options, live).run();
        live.flush();
        HtmlReport.write(result, options.run().outDir());
        out.println("summary: " + options.run().outDir().resolve("summary.json"));
        out.println("report:  " + options.run().outDir().resolve("report.html"));
        out.flush();
        if (!result.ok()) {
            err.println("scenario goal not met: " + result.summary().get("problems"));
            err.flush();
        }
        return result.ok() ? BenchCommand.GOAL_MET : BenchCommand.GOAL_NOT_MET;
    }

    /** Bytes to the command's writer, for the scenario runner's live line (a PrintStream). */
    private static final class WriterOutputStream extends java.io.OutputStream {
        private final PrintWriter writer;

        WriterOutputStream(PrintWriter writer) {
            this.writer = writer;
        }

        @Override
        public void write(int b) {
            writer.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writer.write(new String(b, off, len, StandardCharsets.UTF_8));
        }

        @Override
        public void flush() {
            writer.flush();
        }
    }
}
