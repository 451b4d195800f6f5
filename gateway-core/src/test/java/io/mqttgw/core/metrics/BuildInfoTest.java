package io.mqttgw.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** Each node tells which version it runs, as a series the alerts and dashboard can join on. */
class BuildInfoTest {
    @Test
    void exportsOneSeriesLabelledWithTheVersion() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        BuildInfo.register(registry);
        Gauge info = registry.find("mqttgw.build.info").gauge();
        assertNotNull(info);
        assertEquals(1.0, info.value());
        assertEquals(BuildInfo.version(), info.getId().getTag("version"));
        String scrape = registry.scrape();
        assertEquals(1, scrape.lines().filter(l -> l.startsWith("mqttgw_build_info{")).count(), scrape);
    }

    @Test
    void readsTheVersionFromTheDistributedJarsName() {
        assertEquals("0.1.0", BuildInfo.fromJarName("gateway-core-0.1.0.jar"));
        assertEquals("0.2.0-SNAPSHOT", BuildInfo.fromJarName("gateway-core-0.2.0-SNAPSHOT.jar"));
        assertEquals("unknown", BuildInfo.fromJarName("classes"));
        assertEquals("unknown", BuildInfo.fromJarName("gateway-core-.jar"));
    }
}
