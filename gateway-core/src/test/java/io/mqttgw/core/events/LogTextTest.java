package io.mqttgw.core.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class LogTextTest {
    @Test
    void escapesLineBreaksAndControlCharactersSoNoLineCanBeForged() {
        assertEquals("a\\nINFO forged\\r\\u001b[31m\\\\", LogText.escape("a\nINFO forged\r\u001b[31m\\"));
        assertEquals("null", LogText.escape(null));
        String plain = "devices/dev-1/commands";
        assertSame(plain, LogText.escape(plain), "nothing to escape, nothing copied");
    }
}
