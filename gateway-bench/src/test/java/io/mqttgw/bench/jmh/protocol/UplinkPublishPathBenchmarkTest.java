package io.mqttgw.bench.jmh.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The benchmark measures the path it names: its node's configuration starts, the device it sets up is connected, and
 * each call is one accepted PUBLISH (answered by one PUBACK at QoS 1, by nothing at QoS 0).
 */
class UplinkPublishPathBenchmarkTest {
    @ParameterizedTest
    @CsvSource({"0, 0", "1, 1"})
    void eachCallPublishesOnceOnAConnectedDevice(int qos, int answers) {
        UplinkPublishPathBenchmark bench = new UplinkPublishPathBenchmark();
        bench.qos = qos;
        bench.payload = 20;
        bench.setUp();
        try {
            for (int i = 0; i < 3; i++) {
                assertEquals(answers, bench.publish(), "call " + i);
            }
        } finally {
            bench.tearDown();
        }
    }
}
