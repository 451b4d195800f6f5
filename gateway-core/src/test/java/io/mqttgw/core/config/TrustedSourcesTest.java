package io.mqttgw.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrustedSourcesTest {
    private final TrustedSources trusted = TrustedSources.parse(List.of("10.0.0.0/8", "192.168.1.7", "fd00::/8",
            "172.16.0.0/12"));

    @ParameterizedTest(name = "{0} trusted: {1}")
    @CsvSource({"10.1.2.3, true", "11.0.0.1, false", "192.168.1.7, true", "192.168.1.8, false", "fd12::1, true",
        "fe80::1, false", "172.31.255.255, true", "172.32.0.0, false", "127.0.0.1, false"})
    void trustsOnlyAddressesInTheRanges(String ip, boolean expected) {
        assertEquals(expected, trusted.trusts(new InetSocketAddress(ip, 1)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"balancer.example.com", "10.0.0.0/33", "10.0.0.0/x", "300.1.1.1"})
    void refusesWhatIsNotAnAddressOrRange(String entry) {
        assertThrows(IllegalArgumentException.class, () -> TrustedSources.parse(List.of(entry)));
    }
}
