package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.tls.StrictDerReader.Malformed;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The validity times are counted by hand rather than through java.time; they must take exactly the dates and times
 * java.time takes, as the same instant, and refuse the rest.
 */
class StrictDerReaderTest {
    private static byte[] generalizedTime(int year, int month, int day, int hour, int minute, int second) {
        String text = String.format(Locale.ROOT, "%04d%02d%02d%02d%02d%02dZ", year, month, day, hour, minute, second);
        byte[] der = new byte[2 + text.length()];
        der[0] = 0x18;
        der[1] = (byte) text.length();
        System.arraycopy(text.getBytes(StandardCharsets.US_ASCII), 0, der, 2, text.length());
        return der;
    }

    @Test
    void readsEveryDateAndTimeAsJavaTimeDoesAndRefusesTheOnesItRefuses() throws Malformed {
        int[] years = IntStream.concat(IntStream.of(0, 1, 3, 4, 99, 100, 399, 400, 1600, 1700, 1899, 1900, 1969, 1970,
                2000, 2100, 2400, 9996, 9999), IntStream.rangeClosed(1950, 2060)).toArray();
        int[][] times = {{0, 0, 0}, {23, 59, 59}, {24, 0, 0}, {12, 60, 0}, {12, 0, 60}, {99, 99, 99}, {7, 8, 9}};
        int checked = 0;
        for (int year : years) {
            for (int month = 0; month <= 13; month++) {
                for (int day = 0; day <= 32; day++) {
                    for (int[] time : times) {
                        byte[] der = generalizedTime(year, month, day, time[0], time[1], time[2]);
                        long expected;
                        try {
                            expected = LocalDateTime.of(year, month, day, time[0], time[1], time[2])
                                    .toEpochSecond(ZoneOffset.UTC) * 1000;
                        } catch (DateTimeException refused) {
                            assertThrows(Malformed.class, () -> new StrictDerReader(der).time("t", false),
                                    new String(der, 2, der.length - 2, StandardCharsets.US_ASCII));
                            continue;
                        }
                        StrictDerReader reader = new StrictDerReader(der);
                        assertEquals(expected, reader.time("t", false),
                                new String(der, 2, der.length - 2, StandardCharsets.US_ASCII));
                        assertEquals(der.length, reader.at);
                        checked++;
                    }
                }
            }
        }
        assertEquals(3 * IntStream.of(years).map(y -> java.time.Year.isLeap(y) ? 366 : 365).sum(), checked,
                "three of the times on every real date");
    }
}
