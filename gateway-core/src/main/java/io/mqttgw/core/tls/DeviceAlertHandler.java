package io.mqttgw.core.tls;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import java.util.NoSuchElementException;

/**
 * Reads the TLS record headers a device sends during the handshake, before the TLS engine, to remember the first
 * alert the device sent in the clear, so that a device refusing the server (a server certificate it does not trust,
 * a protocol it will not speak) is logged and counted by the alert it sent.
 *
 * <p>The engine cannot always say so itself. A TLS 1.3 client that rejects the server's certificate has not yet
 * switched to its handshake keys (OpenSSL's client switches only after the server's Finished), so its alert is a
 * plaintext two-byte record while BoringSSL already expects ciphertext: it tries to decrypt two bytes, which are
 * shorter than the AEAD tag, and reports {@code BAD_PACKET_LENGTH}. In TLS 1.2 the same alert is reported as
 * {@code TLSV1_ALERT_UNKNOWN_CA}, but only as message text. Alerts the device encrypts (a JDK client in TLS 1.3) are
 * not readable here and keep the engine's report.
 *
 * <p>Only record headers are parsed and nothing is copied or buffered; the bytes pass on untouched. One per
 * channel, on its event loop; {@link TlsHandshakeHandler} removes it when the handshake ends.
 */
public final class DeviceAlertHandler extends ChannelInboundHandlerAdapter {
    private static final int HEADER = 5;
    private static final int ALERT = 21;
    private static final int CLOSE_NOTIFY = 0;

    /** Bytes of the current record header read so far (0..5), then its body is being passed. */
    private int headerRead;
    private int type;
    private int length;
    /** Body bytes of the current record not yet passed. */
    private int bodyLeft;
    /** The first alert description seen, or -1; the level byte is read into {@link #level}. */
    private int alert = -1;
    private int level = -1;
    /** Not TLS framing (or done): stop looking. */
    private boolean stopped;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!stopped && msg instanceof ByteBuf buf) {
            scan(buf);
        }
        ctx.fireChannelRead(msg);
    }

    private void scan(ByteBuf buf) {
        int i = buf.readerIndex();
        int end = buf.writerIndex();
        while (i < end && !stopped) {
            if (headerRead < HEADER) {
                int b = buf.getUnsignedByte(i++);
                switch (headerRead++) {
                    case 0 -> {
                        type = b;
                        // change_cipher_spec, alert, handshake, application_data; anything else is not ours to read
                        stopped = b < 20 || b > 23;
                    }
                    case 3 -> length = b << 8;
                    case 4 -> {
                        length |= b;
                        bodyLeft = length;
                    }
                    default -> {
                    }
                }
                continue;
            }
            if (bodyLeft == 0) {
                headerRead = 0;
                continue;
            }
            if (type == ALERT && length == 2 && alert < 0) {
                int b = buf.getUnsignedByte(i++);
                bodyLeft--;
                if (bodyLeft == 1) {
                    level = b;
                } else if (b != CLOSE_NOTIFY) {
                    alert = b;
                    stopped = true;
                }
                continue;
            }
            int skip = Math.min(bodyLeft, end - i);
            i += skip;
            bodyLeft -= skip;
        }
        if (!stopped && headerRead == HEADER && bodyLeft == 0) {
            headerRead = 0;
        }
    }

    /**
     * Takes this channel's handler out of {@code pipeline} (the handshake is over) and returns the alert it saw, or
     * null (none seen, or no such handler).
     */
    public static String leave(ChannelPipeline pipeline) {
        ChannelHandlerContext ctx = pipeline.context(DeviceAlertHandler.class);
        if (ctx == null) {
            return null;
        }
        DeviceAlertHandler handler = (DeviceAlertHandler) ctx.handler();
        try {
            pipeline.remove(handler);
        } catch (NoSuchElementException e) {
            // already leaving with a pipeline being torn down: what it saw is still good, and the caller must go on
            // to close the channel
        }
        return handler.received();
    }

    /** The alert the device sent in the clear (never close_notify), or null. */
    public String received() {
        return alert < 0 ? null : name(alert) + (level == 1 ? " (warning)" : "");
    }

    /** The alert description's name as RFC 8446 and RFC 5246 spell it. */
    static String name(int description) {
        return switch (description) {
            case 0 -> "close_notify";
            case 10 -> "unexpected_message";
            case 20 -> "bad_record_mac";
            case 21 -> "decryption_failed";
            case 22 -> "record_overflow";
            case 40 -> "handshake_failure";
            case 42 -> "bad_certificate";
            case 43 -> "unsupported_certificate";
            case 44 -> "certificate_revoked";
            case 45 -> "certificate_expired";
            case 46 -> "certificate_unknown";
            case 47 -> "illegal_parameter";
            case 48 -> "unknown_ca";
            case 49 -> "access_denied";
            case 50 -> "decode_error";
            case 51 -> "decrypt_error";
            case 70 -> "protocol_version";
            case 71 -> "insufficient_security";
            case 80 -> "internal_error";
            case 86 -> "inappropriate_fallback";
            case 90 -> "user_canceled";
            case 109 -> "missing_extension";
            case 110 -> "unsupported_extension";
            case 112 -> "unrecognized_name";
            case 113 -> "bad_certificate_status_response";
            case 115 -> "unknown_psk_identity";
            case 116 -> "certificate_required";
            case 120 -> "no_application_protocol";
            default -> "alert_" + description;
        };
    }
}
