package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokensTest {
    private static final String A = "a".repeat(40);
    private static final String B = "b".repeat(40);

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong();

    private BearerTokens tokens(String content) throws Exception {
        return new BearerTokens(Files.writeString(dir.resolve("tokens"), content), clock::get);
    }

    @Test
    void namesTheIdOfEachTokenOfTheFile() throws Exception {
        BearerTokens t = tokens("# operators\n\nops-1:" + A + "\r\n  ops-2 : " + B + "  \n");
        assertEquals("ops-1", t.idOf(A));
        assertEquals("ops-2", t.idOf(B));
        assertNull(t.idOf(A.substring(1)), "a prefix is not the token");
        assertNull(t.idOf(A + "a"));
        assertNull(t.idOf(""));
        assertNull(t.idOf("ops-1:" + A), "the line is not the token");
    }

    @Test
    void refusesStartupNamingTheKeyForAMissingEmptyOrMalformedFile() throws Exception {
        ConfigException missing = assertThrows(ConfigException.class,
                () -> new BearerTokens(dir.resolve("absent"), clock::get));
        assertTrue(missing.getMessage().startsWith("admin.operations.token-file = '"), missing.getMessage());
        assertTrue(assertThrows(ConfigException.class, () -> tokens("# nothing\n\n")).getMessage()
                .contains("holds no token"));
        ConfigException bare = assertThrows(ConfigException.class, () -> tokens(A + "\n"));
        assertTrue(bare.getMessage().contains("line 1 is not id:token"), bare.getMessage());
        assertFalse(bare.getMessage().contains(A), "a refusal never prints a token");
        assertThrows(ConfigException.class, () -> tokens("short:abc\n"), "tokens of fewer than 32 characters");
        assertThrows(ConfigException.class, () -> tokens("x:" + A + "\nx:" + B + "\n"), "an id twice");
        assertThrows(ConfigException.class, () -> tokens("x:" + A + "\ny:" + A + "\n"), "a token twice");
        assertThrows(ConfigException.class, () -> tokens("bad id:" + A + "\n"));
    }

    @Test
    void picksUpAChangedFileAndKeepsTheOldTokensWhenTheNewFileIsBroken() throws Exception {
        BearerTokens t = tokens("old:" + A + "\n");
        Files.writeString(dir.resolve("tokens"), "old:" + A + "\nnew:" + B + "\n");
        assertNull(t.idOf(B), "not checked again within a second");
        clock.addAndGet(1_000_000_000L);
        assertEquals("new", t.idOf(B));
        Files.writeString(dir.resolve("tokens"), "new:" + B + "\n");
        clock.addAndGet(1_000_000_000L);
        assertNull(t.idOf(A), "a removed token stops working");
        Files.writeString(dir.resolve("tokens"), "");
        clock.addAndGet(1_000_000_000L);
        assertEquals("new", t.idOf(B), "an emptied file keeps the last good tokens");
        Files.delete(dir.resolve("tokens"));
        clock.addAndGet(1_000_000_000L);
        assertEquals("new", t.idOf(B), "a vanished file keeps the last good tokens");
    }
}
