package io.mqttgw.bench.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.scenario.GatewaySnapshot;
import io.mqttgw.bench.sim.scenario.RunResult;
import io.mqttgw.bench.sim.scenario.Sample;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The generated report.html, parsed as XML: the headline table, the chart axes and legends, the summary block. */
class HtmlReportTest {

    private static Map<String, Object> summary(int connected, List<Map<String, Object>> episodes) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("scenario", "storm");
        s.put("started", "2026-11-24T09:00:00Z");
        s.put("devices", 200);
        s.put("mqttVersion", "5");
        s.put("ramp", Map.of("connected", connected, "connectsPerSecond", 187.4,
                "failures", Map.of("connect_refused", 3), "clientCpuMillisPerConnect", 3.125, "startsMissed", 12,
                "connectLatencyMs", Map.of("count", 200, "p50", 12.5, "p99", 40.25, "p999", 61.0)));
        s.put("storm", Map.of("failedAttempts", Map.of("connect_refused", 2, "disconnect_server_busy", 1),
                "gatewayCpuMillisPerHandshake", 1.25, "clientCpuMillisPerReconnect", 1.04,
                "gatewayCpuMillisPerReconnect", 0.2744, "gatewayCpuSplitMillisPerReconnect",
                Map.of("user", 0.1933, "system", 0.05, "jit", 0.0033, "gc", 0.0267)));
        s.put("hold", Map.of("failures", Map.of(), "ackLatencyMs", Map.of("count", 10, "p50", 1.0, "p99", 2.0,
                "p999", 3.0), "gatewayCpuMicrosPerMessage", 35.5));
        s.put("memoryPerConnection", Map.of("connections", connected, "rssBytes", 10_752.0,
                "heapAfterGcBytes", 5_120.0, "directBufferBytes", 512.0));
        s.put("gateway", List.of(Map.of("label", "before", "cpuSeconds", 10.0),
                Map.of("label", "after-ramp", "cpuSeconds", 10.5)));
        s.put("overload", Map.of("watched", true, "sampledEverySeconds", 2.0, "episodes", episodes));
        List<String> problems = new ArrayList<>();
        if (!episodes.isEmpty()) {
            problems.add("the gateway shed load during the run");
        }
        s.put("problems", problems);
        s.put("ok", problems.isEmpty());
        return s;
    }

    private static RunResult run(Map<String, Object> summary) {
        List<Sample> samples = new ArrayList<>();
        for (int t = 1; t <= 37; t++) {
            samples.add(new Sample(t, "ramp", Math.min(200, t * 7), 3, t * 1.3, 0, t * 1.1,
                    t % 5 == 0 ? Map.of("connect_refused", 1L, "a_really_long_failure_reason_name_from_a_server", 2L)
                            : Map.of(), 0, 0, 1.5, 9.7, 13.3, 20, 77.7, 0, t / 4));
        }
        GatewaySnapshot g = new GatewaySnapshot("before", 0, 0, 0, 1e8, 5e7, 1e6, 1e6, 10, 0, 0, 0, 0, 1, 0.2);
        return new RunResult((Boolean) summary.get("ok"), summary, samples,
                List.<String[]>of(new String[] {"0.0", "ramp"}, new String[] {"20.0", "storm"}), List.of(g));
    }

    private static Document parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    private static Map<String, String> headline(Document d) {
        Map<String, String> rows = new LinkedHashMap<>();
        NodeList trs = d.getElementsByTagName("tr");
        for (int i = 0; i < trs.getLength(); i++) {
            Element tr = (Element) trs.item(i);
            if (tr.getParentNode().getParentNode() instanceof Element table
                    && "headline".equals(table.getAttribute("id"))
                    && tr.getElementsByTagName("td").getLength() > 0) {
                rows.put(tr.getElementsByTagName("th").item(0).getTextContent(),
                        tr.getElementsByTagName("td").item(0).getTextContent());
            }
        }
        return rows;
    }

    @Test
    void headlineTableComesFirstWithEveryFigure() throws Exception {
        String html = HtmlReport.html(run(summary(200, List.of())));
        Document d = parse(html);
        assertTrue(html.indexOf("id='headline'") < html.indexOf("<svg"), "headline before the charts");
        Map<String, String> h = headline(d);
        assertEquals("met", h.get("Verdict"));
        assertEquals("5", h.get("MQTT version"));
        assertEquals("200 / 200", h.get("Devices asked / reached"));
        assertEquals("187", h.get("Handshake rate (connections/s, ramp)"));
        assertEquals("12", h.get("Ramp starts the client missed (short of CPU)"));
        assertEquals("12.50 / 40.25 / 61.00", h.get("CONNACK latency p50 / p99 / p99.9 (ms)"));
        assertEquals("1.00 / 2.00 / 3.00", h.get("PUBACK latency p50 / p99 / p99.9 (ms)"));
        assertEquals("connect_refused 5, disconnect_server_busy 1", h.get("Failures by reason"));
        assertEquals("2.50 (ramp), 1.25 (storm), 0.274 (reconnect: user 0.193, system 0.050, JIT 0.003, GC 0.027)",
                h.get("Gateway CPU per handshake (ms)"));
        assertEquals("35.5", h.get("Gateway CPU per message (µs)"));
        assertEquals("3.13 (ramp), 1.04 (reconnect)", h.get("Bench client CPU per connect (ms)"));
        String memory = h.get("Gateway RSS / heap / direct per connection (KiB)");
        assertTrue(memory.startsWith("10.5 / 5.0 / 0.5 (over 200 connections)"), memory);
        assertTrue(memory.contains("caveat: fewer than 5,000 connections"), memory);
        assertEquals("none", h.get("Overload episodes (gateway shed load)"));
    }

    @Test
    void aRunOverSeveralNodesPlotsTheConnectionsOfEachNode() throws Exception {
        Map<String, Object> summary = summary(200, List.of());
        List<Sample> samples = new ArrayList<>();
        for (int t = 1; t <= 20; t++) {
            List<Integer> nodes = t < 10 ? List.of(100, 100) : List.of(200, 0);
            samples.add(new Sample(t, "kill", 200, 0, 0, 0, t == 11 ? 100 : 0, Map.of(), 0, 0, 1, 2, 3, 4, 5, 0, 0,
                    nodes));
        }
        String html = HtmlReport.html(new RunResult(true, summary, samples,
                List.<String[]>of(new String[] {"10.0", "kill"}), List.of()));
        parse(html);
        assertTrue(html.contains("Connections per node"), "per-node chart");
        assertTrue(html.contains("node 0") && html.contains("node 1"), "one series per node");
        assertTrue(html.contains("Reconnects per second"));
        assertFalse(HtmlReport.html(run(summary)).contains("Connections per node"), "not for one gateway");
    }

    @Test
    void noMemoryCaveatFromFiveThousandConnections() throws Exception {
        Map<String, String> h = headline(parse(HtmlReport.html(run(summary(5_000, List.of())))));
        assertFalse(h.get("Gateway RSS / heap / direct per connection (KiB)").contains("caveat"));
    }

    @Test
    void verdictIsNotMetWhenTheGatewayShedLoadAndEpisodesHaveTimes() throws Exception {
        List<Map<String, Object>> episodes = List.of(Map.of("kind", "overloaded (listeners closed, CONNECTs refused)",
                "fromSeconds", 12.0, "toSeconds", 30.0), Map.of("kind", "connections rejected by admission",
                "fromSeconds", 14.0, "toSeconds", 18.0, "count", 340));
        Map<String, String> h = headline(parse(HtmlReport.html(run(summary(200, episodes)))));
        assertTrue(h.get("Verdict").startsWith("not met"), h.get("Verdict"));
        assertEquals("overloaded (listeners closed, CONNECTs refused) 12-30 s; connections rejected by admission "
                + "14-18 s (340)", h.get("Overload episodes (gateway shed load)"));
    }

    @Test
    void axisTicksAreRoundValuesFromZero() throws Exception {
        Document d = parse(HtmlReport.html(run(summary(200, List.of()))));
        NodeList groups = d.getElementsByTagName("g");
        int axes = 0;
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            String cls = g.getAttribute("class");
            if (!cls.endsWith("ticks")) {
                continue;
            }
            NodeList texts = g.getElementsByTagName("text");
            List<Double> values = new ArrayList<>();
            for (int k = 0; k < texts.getLength(); k++) {
                values.add(value(texts.item(k).getTextContent().replace("s", "")));
            }
            assertEquals(0.0, values.get(0), cls);
            double step = values.get(1);
            assertTrue(isRound(step), cls + " step " + step + " in " + values);
            for (int k = 0; k < values.size(); k++) {
                assertEquals(step * k, values.get(k), step * 1e-9, cls + " " + values);
            }
            axes++;
        }
        assertTrue(axes >= 12, "x and y axes of every chart, found " + axes);
    }

    @Test
    void cumulativeDisconnectsHaveTheirOwnAxisAndLegendsAreWhole() throws Exception {
        Document d = parse(HtmlReport.html(run(summary(200, List.of()))));
        NodeList groups = d.getElementsByTagName("g");
        boolean rightAxis = false;
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            rightAxis |= g.getAttribute("class").equals("y2-ticks");
            if (g.getAttribute("class").equals("legend")) {
                Element svg = (Element) g.getParentNode();
                double width = Double.parseDouble(svg.getAttribute("width"));
                double height = Double.parseDouble(svg.getAttribute("height"));
                NodeList texts = g.getElementsByTagName("text");
                for (int k = 0; k < texts.getLength(); k++) {
                    Element t = (Element) texts.item(k);
                    double x = Double.parseDouble(t.getAttribute("x"));
                    double y = Double.parseDouble(t.getAttribute("y"));
                    // 7 px a character is wider than any 11 px sans-serif glyph run of this length
                    assertTrue(x + 7 * t.getTextContent().length() <= width, t.getTextContent() + " cut at the right");
                    assertTrue(y <= height, t.getTextContent() + " cut at the bottom");
                }
            }
        }
        assertTrue(rightAxis, "the cumulative series has a right axis");
        assertTrue(d.getDocumentElement().getTextContent().contains("disconnects so far (not dropped by the bench) "
                + "(right axis)"));
    }

    @Test
    void summaryJsonIsPrettyPrintedInACollapsedBlock() throws Exception {
        Document d = parse(HtmlReport.html(run(summary(200, List.of()))));
        NodeList details = d.getElementsByTagName("details");
        assertEquals(1, details.getLength());
        Element block = (Element) details.item(0);
        assertFalse(block.hasAttribute("open"));
        String json = block.getElementsByTagName("pre").item(0).getTextContent();
        assertTrue(json.contains("\n  \"scenario\" : \"storm\""), json);
    }

    @Test
    void comparisonPutsRunsSideBySide() throws Exception {
        Map<String, Object> v311 = new LinkedHashMap<>(summary(200, List.of()));
        v311.put("mqttVersion", "3.1.1");
        Document d = parse(HtmlReport.compare(List.of("connect-311", "connect-5"),
                List.of(v311, summary(200, List.of()))));
        NodeList rows = d.getElementsByTagName("tr");
        boolean found = false;
        for (int i = 0; i < rows.getLength(); i++) {
            Element tr = (Element) rows.item(i);
            if (tr.getElementsByTagName("th").item(0).getTextContent().equals("MQTT version")) {
                NodeList tds = tr.getElementsByTagName("td");
                assertEquals("3.1.1", tds.item(0).getTextContent());
                assertEquals("5", tds.item(1).getTextContent());
                found = true;
            }
        }
        assertTrue(found);
        assertEquals(2, d.getElementsByTagName("details").getLength());
    }

    @Test
    void roundStepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen() {
        assertEquals(2.5, SvgChart.roundStep(2.1));
        assertEquals(50, SvgChart.roundStep(37));
        assertEquals(0.1, SvgChart.roundStep(0.1), 1e-12);
        assertEquals("12.5k", SvgChart.label(12_500));
        assertEquals("2.5", SvgChart.label(2.5));
        assertEquals("0", SvgChart.label(0));
    }

    private static double value(String label) {
        String l = label.trim();
        double mult = 1;
        if (l.endsWith("k")) {
            mult = 1e3;
        } else if (l.endsWith("M")) {
            mult = 1e6;
        } else if (l.endsWith("G")) {
            mult = 1e9;
        }
        if (mult > 1) {
            l = l.substring(0, l.length() - 1);
        }
        return Double.parseDouble(l) * mult;
    }

    private static boolean isRound(double step) {
        double p = Math.pow(10, Math.floor(Math.log10(step)));
        double m = step / p;
        for (double r : new double[] {1, 2, 2.5, 5}) {
            if (Math.abs(m - r) < 1e-9) {
                return true;
            }
        }
        return false;
    }
}
