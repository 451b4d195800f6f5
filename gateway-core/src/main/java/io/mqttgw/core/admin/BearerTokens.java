package io.mqttgw.core.admin;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.CoreConfigKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator tokens of {@code admin.operations.token-file}: one {@code id:token} a line ({@code #} comments and
 * blank lines ignored), several at once so a new token can be rolled out before the old one is removed. Only
 * SHA-256 hashes of the tokens are kept, and a presented token is compared with every one of them with
 * {@link MessageDigest#isEqual}, so the time taken says nothing about how much of a token matched or which one.
 * The file is read at startup (unreadable, empty or malformed stops startup, naming the key) and again when its
 * content changes, checked at most once a second when a request comes; a changed file that is not valid keeps
 * the previous tokens and says so in the log. Used on the admin thread only.
 */
final class BearerTokens {
    private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);
    private static final String KEY = CoreConfigKeys.ADMIN_OPERATIONS_TOKEN_FILE.name();
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]{32,512}");
    private static final long CHECK_EVERY_NANOS = 1_000_000_000L;

    /** A token's id (named in the event log) and its SHA-256. */
    private record Entry(String id, byte[] hash) {
    }

    private final Path file;
    private final LongSupplier nanoClock;
    private List<Entry> entries;
    private byte[] fileHash;
    private long lastCheck;

    BearerTokens(Path file, LongSupplier nanoClock) {
        this.file = file;
        this.nanoClock = nanoClock;
        byte[] content = read();
        this.entries = parse(content);
        this.fileHash = sha256(content);
        this.lastCheck = nanoClock.getAsLong();
        LOG.info("{}: {} operator tokens from {}", KEY, entries.size(), file);
    }

    /** Reads the tokens at startup; a {@link ConfigException} naming the key when they cannot be used. */
    static BearerTokens load(Path file) {
        return new BearerTokens(file, System::nanoTime);
    }

    /** The id of the token {@code presented} matches, or null. Checks the file for changes first (at most 1/s). */
    String idOf(String presented) {
        reloadIfDue();
        byte[] hash = sha256(presented.getBytes(StandardCharsets.UTF_8));
        String match = null;
        for (Entry e : entries) {
            // no early exit: every entry is compared whatever matched
            if (MessageDigest.isEqual(e.hash, hash) && match == null) {
                match = e.id;
            }
        }
        return match;
    }

    int size() {
        return entries.size();
    }

    private void reloadIfDue() {
        long now = nanoClock.getAsLong();
        if (now - lastCheck < CHECK_EVERY_NANOS) {
            return;
        }
        lastCheck = now;
        try {
            byte[] content = read();
            byte[] hash = sha256(content);
            if (Arrays.equals(hash, fileHash)) {
                return;
            }
            fileHash = hash;
            entries = parse(content);
            LOG.info("{} changed: {} operator tokens now", KEY, entries.size());
        } catch (ConfigException e) {
            LOG.warn("{} changed but cannot be used, keeping the previous {} tokens: {}", KEY, entries.size(),
                    e.getMessage());
        }
    }

    private byte[] read() {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(KEY + " = '" + file + "' cannot be read (" + e + "); point it at a readable "
                    + "file of id:token lines");
        }
    }

    /** Lines {@code id:token}; a refusal names the line number, never the token. */
    private List<Entry> parse(byte[] content) {
        List<Entry> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Set<String> tokens = new HashSet<>();
        String[] lines = new String(content, StandardCharsets.UTF_8).split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            String id = colon < 0 ? "" : line.substring(0, colon).strip();
            String token = colon < 0 ? "" : line.substring(colon + 1).strip();
            String where = KEY + " = '" + file + "' line " + (i + 1);
            if (!ID.matcher(id).matches()) {
                throw new ConfigException(where + " is not id:token (the id is 1 to 64 of A-Z a-z 0-9 . _ -)");
            }
            if (!TOKEN.matcher(token).matches()) {
                throw new ConfigException(where + ": the token of '" + id + "' must be 32 to 512 printable ASCII "
                        + "characters without spaces (e.g. openssl rand -hex 32)");
            }
            if (!ids.add(id) || !tokens.add(token)) {
                throw new ConfigException(where + ": id '" + id + "' or its token appears twice");
            }
            out.add(new Entry(id, sha256(token.getBytes(StandardCharsets.UTF_8))));
        }
        if (out.isEmpty()) {
            throw new ConfigException(KEY + " = '" + file + "' holds no token: write one id:token a line, or unset "
                    + "the key to turn the operations endpoints off");
        }
        return List.copyOf(out);
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
