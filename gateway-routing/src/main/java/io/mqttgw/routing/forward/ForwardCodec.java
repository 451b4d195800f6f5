package io.mqttgw.routing.forward;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.routing.session.MessageCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The messages of operation forwarding, binary so that a payload goes as it is. Every string is a 2-byte length and
 * UTF-8.
 * <ul>
 *   <li>request, on the holder's channel: version (1), kind ({@code 'D'} downlink, {@code 'K'} kick), correlation id
 *       (8 bytes), timeout in ms (4 bytes: the holder gives up waiting for the outcome after it), the node to answer
 *       (string); a downlink then carries the message as {@link MessageCodec} stores it (client id, topic, QoS,
 *       retain, expiry, MQTT 5.0 properties, payload to the end); a kick the discard-session flag (1 byte) and the
 *       client id (string)</li>
 *   <li>reply, on the asking node's reply channel: version (1), correlation id (8 bytes), the answering node
 *       (string), status: {@code 'D'} then the outcome and the retained result (strings, the constant names of
 *       {@link DownlinkTarget.Outcome} and {@link DownlinkTarget.Retained}, empty for none); {@code 'K'} then closed
 *       and session discarded (1 byte each); {@code 'N'} the node does not hold the device; {@code 'B'} busy and
 *       {@code 'E'} failed, each then a reason (string)</li>
 * </ul>
 * Parsing never throws: anything else is null, which the receiver counts and drops.
 */
final class ForwardCodec {
    static final byte VERSION = 1;
    static final byte DOWNLINK = 'D';
    static final byte KICK = 'K';
    static final byte NOT_HERE = 'N';
    static final byte BUSY = 'B';
    static final byte FAILED = 'E';
    private static final int MAX_STRING = 0xFFFF;
    /** Characters of a reason sent back; enough for an exception's text, and within a string's length in UTF-8. */
    private static final int MAX_REASON = 1000;

    private ForwardCodec() {
    }

    /** A forwarded request: exactly one of {@code message} (downlink) and {@code clientId} with a kick is set. */
    record Request(byte kind, long id, int timeoutMillis, String replyTo, DownlinkMessage message, String kickClientId,
                   boolean discardSession) {
        String clientId() {
            return kind == DOWNLINK ? message.clientId() : kickClientId;
        }
    }

    /** A holder's answer; the fields of other statuses are null or false. */
    record Reply(long id, String nodeId, byte status, DownlinkTarget.Outcome outcome,
                 DownlinkTarget.Retained retained, boolean closed, boolean sessionDiscarded, String reason) {
    }

    static byte[] downlink(long id, int timeoutMillis, String replyTo, DownlinkMessage message) {
        byte[] node = utf8(replyTo);
        byte[] body = MessageCodec.encode(message);
        return ByteBuffer.allocate(1 + 1 + 8 + 4 + 2 + node.length + body.length).put(VERSION).put(DOWNLINK)
                .putLong(id).putInt(timeoutMillis).putShort((short) node.length).put(node).put(body).array();
    }

    static byte[] kick(long id, int timeoutMillis, String replyTo, String clientId, boolean discardSession) {
        byte[] node = utf8(replyTo);
        byte[] client = utf8(clientId);
        return ByteBuffer.allocate(1 + 1 + 8 + 4 + 2 + node.length + 1 + 2 + client.length).put(VERSION).put(KICK)
                .putLong(id).putInt(timeoutMillis).putShort((short) node.length).put(node)
                .put((byte) (discardSession ? 1 : 0)).putShort((short) client.length).put(client).array();
    }

    /** The request, or null when {@code bytes} is not one this version writes. */
    static Request request(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.get() != VERSION) {
                return null;
            }
            byte kind = b.get();
            long id = b.getLong();
            int timeout = b.getInt();
            String replyTo = string(b);
            if (timeout <= 0 || replyTo == null || replyTo.isEmpty()) {
                return null;
            }
            if (kind == DOWNLINK) {
                byte[] rest = new byte[b.remaining()];
                b.get(rest);
                DownlinkMessage m = MessageCodec.decode(rest);
                return m.clientId() == null ? null : new Request(kind, id, timeout, replyTo, m, null, false);
            }
            if (kind == KICK) {
                byte discard = b.get();
                String client = string(b);
                if (discard > 1 || discard < 0 || client == null || client.isEmpty() || b.hasRemaining()) {
                    return null;
                }
                return new Request(kind, id, timeout, replyTo, null, client, discard == 1);
            }
            return null;
        } catch (RuntimeException e) {
            // whatever a malformed message makes the decoding throw (underflow, an unknown name, a bad length)
            return null;
        }
    }

    static byte[] downlinkReply(long id, String nodeId, DownlinkTarget.Report report) {
        return reply(id, nodeId, DOWNLINK, report.outcome().name(),
                report.retained() == null ? "" : report.retained().name());
    }

    static byte[] kickReply(long id, String nodeId, boolean closed, boolean sessionDiscarded) {
        byte[] node = utf8(nodeId);
        return ByteBuffer.allocate(1 + 8 + 2 + node.length + 1 + 2).put(VERSION).putLong(id)
                .putShort((short) node.length).put(node).put(KICK).put((byte) (closed ? 1 : 0))
                .put((byte) (sessionDiscarded ? 1 : 0)).array();
    }

    static byte[] notHere(long id, String nodeId) {
        return reply(id, nodeId, NOT_HERE);
    }

    /** {@link #BUSY} or {@link #FAILED} with why. */
    static byte[] refusal(long id, String nodeId, byte status, String reason) {
        return reply(id, nodeId, status, reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
    }

    private static byte[] reply(long id, String nodeId, byte status, String... strings) {
        byte[] node = utf8(nodeId);
        byte[][] encoded = new byte[strings.length][];
        int size = 1 + 8 + 2 + node.length + 1;
        for (int i = 0; i < strings.length; i++) {
            encoded[i] = utf8(strings[i]);
            size += 2 + encoded[i].length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).put(VERSION).putLong(id).putShort((short) node.length).put(node)
                .put(status);
        for (byte[] s : encoded) {
            b.putShort((short) s.length).put(s);
        }
        return b.array();
    }

    /** The reply, or null when {@code bytes} is not one this version writes. */
    static Reply reply(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.get() != VERSION) {
                return null;
            }
            long id = b.getLong();
            String node = string(b);
            if (node == null || node.isEmpty()) {
                return null;
            }
            byte status = b.get();
            Reply r = switch (status) {
                case DOWNLINK -> {
                    String outcome = string(b);
                    String retained = string(b);
                    yield outcome == null || retained == null ? null : new Reply(id, node, status,
                            DownlinkTarget.Outcome.valueOf(outcome),
                            retained.isEmpty() ? null : DownlinkTarget.Retained.valueOf(retained), false, false, null);
                }
                case KICK -> {
                    byte closed = b.get();
                    byte discarded = b.get();
                    yield (closed & ~1) != 0 || (discarded & ~1) != 0 ? null
                            : new Reply(id, node, status, null, null, closed == 1, discarded == 1, null);
                }
                case NOT_HERE -> new Reply(id, node, status, null, null, false, false, null);
                case BUSY, FAILED -> {
                    String reason = string(b);
                    yield reason == null ? null : new Reply(id, node, status, null, null, false, false, reason);
                }
                default -> null;
            };
            return r == null || b.hasRemaining() ? null : r;
        } catch (RuntimeException e) {
            // whatever a malformed message makes the decoding throw (underflow, an unknown name, a bad length)
            return null;
        }
    }

    private static byte[] utf8(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING) {
            throw new IllegalArgumentException("longer than " + MAX_STRING + " bytes in UTF-8");
        }
        return bytes;
    }

    /** A 2-byte length and strict UTF-8, or null when malformed. */
    private static String string(ByteBuffer b) {
        int length = Short.toUnsignedInt(b.getShort());
        if (length > b.remaining()) {
            return null;
        }
        ByteBuffer slice = b.slice();
        slice.limit(length);
        b.position(b.position() + length);
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(slice).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }
}
