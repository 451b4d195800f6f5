package io.mqttgw.bench.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.BadArgumentException;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.CertMode;
import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.config.MqttVersion;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.config.TrafficProfile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {

    private static BenchOptions parse(Scenario s, String... args) {
        return BenchCommand.parseScenario(s, List.of(args));
    }

    /** Runs the command line as bin/bench does; [exit status, stdout, stderr]. */
    private static Object[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = BenchCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Object[] {status, out.toString(), err.toString()};
    }

    @Test
    void requiresDeviceCount() {
        BadArgumentException e = assertThrows(BadArgumentException.class, () -> parse(Scenario.CONNECT, "--port",
                "8883"));
        assertTrue(e.getMessage().contains("--devices"), e.getMessage());
    }

    @Test
    void suggestsClosestOptionForTypo() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "5", "--ramp-rat", "10"));
        assertTrue(e.getMessage().contains("did you mean --ramp-rate"), e.getMessage());
    }

    @Test
    void rejectsOutOfRangeNumbersNamingTheOptionAndAllowedRange() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "5", "--port", "70000"));
        assertTrue(e.getMessage().contains("--port") && e.getMessage().contains("1 to 65535"), e.getMessage());
    }

    @Test
    void rejectsValueThatIsNotANumberNamingTheOption() {
        BadArgumentException e = assertThrows(BadArgumentException.class, () -> parse(Scenario.CONNECT, "--devices",
                "many"));
        assertTrue(e.getMessage().contains("--devices") && e.getMessage().contains("many"), e.getMessage());
    }

    @Test
    void rejectsOptionWithoutValue() {
        BadArgumentException e = assertThrows(BadArgumentException.class, () -> parse(Scenario.CONNECT, "--devices"));
        assertTrue(e.getMessage().contains("--devices"), e.getMessage());
    }

    @Test
    void rejectsDurationWithoutUnitSayingHowToWriteIt() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "5", "--hold", "10"));
        assertTrue(e.getMessage().contains("--hold") && e.getMessage().contains("10s"), e.getMessage());
    }

    @Test
    void rejectsAnOptionGivenTwice() {
        assertThrows(BadArgumentException.class, () -> parse(Scenario.CONNECT, "--devices", "5", "--devices", "6"));
    }

    @Test
    void spreadsDevicesOverEnoughWorkersByDefault() {
        BenchOptions o = parse(Scenario.CONNECT, "--devices", "40000");
        assertEquals(3, o.fleet().workers());
        assertEquals(18_000, o.fleet().perWorker());
    }

    @Test
    void refusesTooFewWorkersForTheDeviceCount() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "40000", "--workers", "2"));
        assertTrue(e.getMessage().contains("raise --workers or --per-worker"), e.getMessage());
    }

    @Test
    void keepsEveryDefaultOfTheHandWrittenParser() {
        BenchOptions o = parse(Scenario.CONNECT, "--devices", "10");
        assertEquals("127.0.0.1", o.target().host());
        assertEquals(8883, o.target().port());
        assertEquals("http://127.0.0.1:9090/metrics", o.target().metrics().toString());
        assertFalse(o.target().hasPid());
        assertEquals(1, o.fleet().workers());
        assertEquals("dev-", o.fleet().clientIdPrefix());
        assertEquals(500, o.fleet().rampRate());
        assertEquals(200, o.fleet().maxHandshakes());
        assertTrue(o.fleet().sources().isEmpty());
        assertEquals(Duration.ofSeconds(15), o.fleet().connectTimeout());
        assertEquals(Path.of("bench-pki"), o.fleet().pkiDir());
        assertEquals(Path.of("bench-pki", "ca.pem"), o.fleet().serverCa());
        assertEquals(KeyAlgorithm.EC, o.fleet().algorithm());
        assertEquals(CertMode.PER_DEVICE, o.fleet().certMode());
        assertEquals(100, o.fleet().certPool());
        assertTrue(o.fleet().resume());
        assertEquals(1, o.fleet().ioThreads());
        assertEquals(MqttVersion.V3_1_1, o.fleet().protocol().version());
        assertEquals(Duration.ofSeconds(10), o.run().hold());
        assertEquals(Duration.ofSeconds(30), o.run().duration());
        assertEquals(1000, o.run().publishRate());
        assertEquals(1, o.run().publishQos());
        assertEquals(64, o.run().publishBytes());
        assertEquals(0.5, o.run().dropFraction());
        assertEquals(Duration.ofSeconds(1), o.run().backoff().base());
        assertEquals(Duration.ofSeconds(30), o.run().backoff().max());
        assertEquals(Duration.ofSeconds(300), o.run().recoverTimeout());
        assertEquals(Duration.ofSeconds(600), o.run().rampTimeout());
        assertEquals(Duration.ofSeconds(5), o.run().settle());
        assertTrue(o.run().outDir().toString().startsWith("bench-results/connect-"), o.run().outDir().toString());
        assertEquals(List.of("-Xmx1g", "-XX:+UseG1GC", "-XX:TieredStopAtLevel=1"), o.run().workerJvmOptions());
        assertEquals(List.of("x25519", "secp256r1"), o.fleet().tlsGroups());
        assertFalse(o.isWorker());
    }

    @Test
    void acceptsTheOptionsTheScriptsAndBenchmarksPass() {
        BenchOptions o = parse(Scenario.STORM, "--devices", "18000", "--per-worker", "9000", "--pki-dir", "/tmp/p",
                "--source", "127.0.1.2-127.0.1.250", "--port", "18883", "--admin", "none", "--gateway-pid", "42",
                "--ramp-rate", "800", "--max-handshakes", "400", "--drop", "0.5", "--resume", "false",
                "--backoff-base", "1s", "--backoff-max", "30s", "--settle", "5s", "--out", "/tmp/o",
                "--algorithm", "rsa", "--client-prefix", "again-", "--hold", "3600s", "--ramp-timeout", "1500s",
                "--worker-jvm", "-Xmx512m -XX:+UseG1GC", "--profile", "field", "--mqtt-version", "5");
        assertEquals(2, o.fleet().workers());
        assertEquals(249, o.fleet().sources().size());
        assertFalse(o.fleet().resume());
        assertEquals(42, o.target().pid());
        assertEquals(KeyAlgorithm.RSA, o.fleet().algorithm());
        assertEquals(List.of("-Xmx512m", "-XX:+UseG1GC"), o.run().workerJvmOptions());
        assertEquals(MqttVersion.V5, o.fleet().protocol().version());
        assertEquals("5", o.given().get("mqtt-version"));
        assertEquals("-Xmx512m -XX:+UseG1GC", o.given().get("worker-jvm"));
    }

    @Test
    void acceptsYesNoOnOffForBooleans() {
        assertFalse(parse(Scenario.STORM, "--devices", "1", "--resume", "no").fleet().resume());
        assertTrue(parse(Scenario.STORM, "--devices", "1", "--resume", "on").fleet().resume());
    }

    @Test
    void offersTheKeyExchangeGroupsGivenInTheirOrderAndRejectsUnknownOnes() {
        assertEquals(List.of("X25519MLKEM768", "x25519"), parse(Scenario.STORM, "--devices", "1", "--tls-groups",
                "X25519MLKEM768, x25519").fleet().tlsGroups());
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "1", "--tls-groups", "x448"));
        assertTrue(e.getMessage().contains("--tls-groups") && e.getMessage().contains("X25519MLKEM768"),
                e.getMessage());
    }

    @Test
    void rejectsUnknownMqttVersionSayingWhatToWrite() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "1", "--mqtt-version", "4"));
        assertTrue(e.getMessage().contains("--mqtt-version") && e.getMessage().contains("3.1.1 or 5"), e.getMessage());
    }

    @Test
    void soakDefaultsToFieldProfileAndLongHoldConnectToIdle() {
        BenchOptions soak = parse(Scenario.SOAK, "--devices", "1");
        assertTrue(soak.profile().enabled());
        assertEquals(Duration.ofHours(1), soak.run().hold());
        assertFalse(parse(Scenario.CONNECT, "--devices", "1").profile().enabled());
    }

    @Test
    void fieldProfileDefaultsMatchTheField() {
        TrafficProfile p = parse(Scenario.SOAK, "--devices", "1").profile();
        assertEquals(Duration.ofSeconds(15), p.heartbeatInterval());
        assertEquals(20, p.heartbeatBytes());
        assertEquals(Duration.ofSeconds(60), p.statusInterval());
        assertEquals(500, p.statusBytes());
        assertEquals(120, p.keepAliveSeconds());
    }

    @Test
    void timeScaleShortensIntervalsAndKeepalive() {
        TrafficProfile p = parse(Scenario.SOAK, "--devices", "1", "--time-scale", "10").profile();
        assertEquals(1_500_000_000L, p.heartbeatNanos());
        assertEquals(12, p.keepAliveSeconds());
    }

    @Test
    void rejectsBackoffMaxBelowBase() {
        assertThrows(BadArgumentException.class,
                () -> parse(Scenario.STORM, "--devices", "1", "--backoff-base", "10s", "--backoff-max", "1s"));
    }

    @Test
    void rejectsMalformedAdminAddressSayingHowToWriteIt() {
        BadArgumentException e = assertThrows(BadArgumentException.class,
                () -> parse(Scenario.CONNECT, "--devices", "1", "--admin", "localhost"));
        assertTrue(e.getMessage().contains("host:port"), e.getMessage());
    }

    @Test
    void adminNoneMeansNoMetrics() {
        assertFalse(parse(Scenario.CONNECT, "--devices", "1", "--admin", "none").target().hasMetrics());
    }

    @Test
    void acceptsEqualsSyntaxAndKeepsGivenOptionsForWorkersButNotTheInternalOnes() {
        BenchOptions o = parse(Scenario.CONNECT, "--devices=7", "--certs", "pool", "--worker-index", "1",
                "--worker-count", "2");
        assertEquals(7, o.fleet().devices());
        assertEquals(CertMode.POOL, o.fleet().certMode());
        assertEquals("7", o.given().get("devices"));
        assertEquals("pool", o.given().get("certs"));
        assertEquals(2, o.given().size());
        assertTrue(o.isWorker());
        assertEquals(1, o.workerIndex());
    }

    @Test
    void badArgumentsExitWithStatus2AndNameTheFix() {
        Object[] r = run("connect", "--devices", "5", "--hold", "10");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("--hold") && ((String) r[2]).contains("bench connect --help"),
                (String) r[2]);
        Object[] range = run("connect", "--devices", "0");
        assertEquals(2, range[0]);
        assertTrue(((String) range[2]).contains("--devices = 0 is out of range"), (String) range[2]);
    }

    @Test
    void unknownCommandExitsWith2() {
        assertEquals(2, run("conect")[0]);
    }

    @Test
    void everyCommandHasItsOwnHelp() {
        for (String command : List.of("connect", "publish", "storm", "soak", "pki", "completion")) {
            Object[] r = run(command, "--help");
            assertEquals(0, r[0], command);
            assertTrue(((String) r[1]).contains("Usage: bench " + command), command + ": " + r[1]);
        }
        String storm = (String) run("storm", "--help")[1];
        assertTrue(storm.contains("--backoff-base") && storm.contains("--mqtt-version"), storm);
        assertFalse(storm.contains("--worker-index"), storm);
    }

    @Test
    void printsTheVersion() {
        Object[] r = run("--version");
        assertEquals(0, r[0]);
        assertTrue(((String) r[1]).startsWith("bench "), (String) r[1]);
        assertFalse(((String) r[1]).contains("unknown"), (String) r[1]);
    }

    @Test
    void completionScriptCompletesTheCommandsAndOptions() {
        Object[] r = run("completion");
        assertEquals(0, r[0]);
        String script = (String) r[1];
        assertTrue(script.contains("complete -F") && script.contains("storm") && script.contains("--mqtt-version"),
                script.substring(0, Math.min(500, script.length())));
    }

    @Test
    void pkiWritesTheCaAndServerCertificate(@TempDir Path dir) {
        Object[] r = run("pki", "--pki-dir", dir.toString());
        assertEquals(0, r[0], (String) r[2]);
        assertTrue(Files.exists(dir.resolve("ca.pem")));
        assertTrue(((String) r[1]).contains("listener.tls.ca-file"));
    }

    @Test
    void compareWritesTheRunsSideBySideAndRefusesADirectoryWithoutSummary(@TempDir Path dir) throws Exception {
        for (String v : List.of("3.1.1", "5")) {
            Files.createDirectories(dir.resolve("connect-" + v));
            Files.writeString(dir.resolve("connect-" + v).resolve("summary.json"),
                    "{\"scenario\":\"connect\",\"mqttVersion\":\"" + v + "\",\"devices\":10,\"ok\":true}");
        }
        Path page = dir.resolve("out").resolve("compare.html");
        Object[] r = run("compare", dir.resolve("connect-3.1.1").toString(),
                dir.resolve("connect-5").resolve("summary.json").toString(), "--out", page.toString());
        assertEquals(0, r[0], (String) r[2]);
        String html = Files.readString(page);
        assertTrue(html.contains("<th>connect-3.1.1</th><th>connect-5</th>"), html);
        Object[] missing = run("compare", dir.toString(), dir.resolve("connect-5").toString());
        assertEquals(2, missing[0]);
        assertTrue(((String) missing[2]).contains("has no readable summary.json"), (String) missing[2]);
    }
}
