package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverloadWatchTest {

    @Test
    void aQuietGatewayHasNoEpisodes() {
        OverloadWatch w = new OverloadWatch();
        for (int t = 0; t < 20; t += 2) {
            w.observe(t, 0, 5);
        }
        assertTrue(w.finish(20).isEmpty());
    }

    @Test
    void overloadLevelAndRejectionsBecomeEpisodesWithTimes() {
        OverloadWatch w = new OverloadWatch();
        w.observe(0, 0, 0);
        w.observe(2, 0, 0);
        w.observe(4, 1, 0);
        w.observe(6, 1, 30);
        w.observe(8, 0, 50);
        w.observe(10, 0, 50);
        w.observe(12, 0, 50);
        List<Map<String, Object>> e = w.finish(14);
        assertEquals(2, e.size(), e.toString());
        assertEquals(OverloadWatch.OVERLOADED, e.get(0).get("kind"));
        assertEquals(2.0, e.get(0).get("fromSeconds"));
        assertEquals(8.0, e.get(0).get("toSeconds"));
        assertEquals(OverloadWatch.REJECTED, e.get(1).get("kind"));
        assertEquals(4.0, e.get(1).get("fromSeconds"));
        assertEquals(8.0, e.get(1).get("toSeconds"));
        assertEquals(50L, e.get(1).get("count"));
    }

    @Test
    void anEpisodeStillOpenEndsWithTheRun() {
        OverloadWatch w = new OverloadWatch();
        w.observe(0, 0, 0);
        w.observe(2, 1, 0);
        List<Map<String, Object>> e = w.finish(9);
        assertEquals(9.0, e.get(0).get("toSeconds"));
    }

    @Test
    void samplesAreDueEveryTwoSeconds() {
        OverloadWatch w = new OverloadWatch();
        assertTrue(w.due(0));
        w.observe(0, 0, 0);
        assertTrue(!w.due(1.5));
        assertTrue(w.due(2.0));
    }

    @Test
    void sheddingLoadIsAProblemNamingTheEpisodesAndTheirTimes() {
        OverloadWatch w = new OverloadWatch();
        w.observe(0, 0, 0);
        w.observe(2, 1, 0);
        w.observe(4, 0, 0);
        assertEquals("the gateway shed load during the run: " + OverloadWatch.OVERLOADED + " 0-4 s",
                ScenarioRunner.shedLoadProblem(w.finish(6)));
        assertEquals(null, ScenarioRunner.shedLoadProblem(List.of()));
    }
}
