package io.mqttgw.core.admin;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Builds and writes the admin plane's answers: JSON bodies written with Jackson's streaming generator (refusals carry
 * {@code {"error": reason}}), one line each, or text. Stateless.
 */
final class AdminResponses {
    static final String JSON = "application/json";
    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    /** Writes one JSON value with the generator it is given. */
    @FunctionalInterface
    interface JsonBody {
        void writeTo(JsonGenerator json) throws IOException;
    }

    private AdminResponses() {
    }

    static FullHttpResponse text(HttpResponseStatus status, String body, String type) {
        return response(status, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), type);
    }

    private static FullHttpResponse response(HttpResponseStatus status, ByteBuf content, String type) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type)
                .set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes())
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        return r;
    }

    /** A JSON answer: what {@code body} writes, then a line end. */
    static FullHttpResponse json(HttpResponseStatus status, JsonBody body) {
        ByteBuf content = Unpooled.buffer(128);
        try (JsonGenerator g = JSON_FACTORY.createGenerator((OutputStream) new ByteBufOutputStream(content))) {
            body.writeTo(g);
        } catch (IOException e) {
            content.release();
            throw new UncheckedIOException("writing JSON to memory", e);
        } catch (RuntimeException e) {
            content.release();
            throw e;
        }
        content.writeByte('\n');
        return response(status, content, JSON);
    }

    /** A JSON object of one member. */
    static FullHttpResponse json(HttpResponseStatus status, String name, String value) {
        return json(status, g -> {
            g.writeStartObject();
            g.writeStringField(name, value);
            g.writeEndObject();
        });
    }

    /** A refusal: {@code {"error":"<reason>"}}. */
    static FullHttpResponse error(HttpResponseStatus status, String reason) {
        return json(status, "error", reason);
    }

    /** Writes the answer; closes the connection afterwards unless the request asked to keep it. */
    static void respond(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response) {
        HttpUtil.setKeepAlive(response, keepAlive);
        var future = ctx.writeAndFlush(response);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
    }
}
