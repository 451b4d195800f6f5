package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import org.junit.jupiter.api.Test;

class AdminIdleCloseHandlerTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final EmbeddedChannel channel = new EmbeddedChannel(new AdminIdleCloseHandler(new AdminMetrics(meters)));

    private double closedIdle() {
        var counter = meters.find("mqttgw.admin.connections.closed").tag("reason", "idle").counter();
        return counter == null ? 0 : counter.count();
    }

    private void idle() {
        channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
    }

    private void readWholeRequest() {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/downlink"));
        channel.releaseInbound();
    }

    private void answer(HttpResponseStatus status) {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status));
        channel.releaseOutbound();
    }

    @Test
    void closesAConnectionWithNothingOwedWhenIdle() {
        idle();
        assertFalse(channel.isOpen());
        assertEquals(1.0, closedIdle());
    }

    @Test
    void keepsAConnectionWhoseAnswerIsStillBeingWorkedOutThenClosesItOnceAnswered() {
        readWholeRequest();
        idle();
        idle();
        assertTrue(channel.isOpen(), "a forwarded operation still waiting for its outcome keeps its connection");
        assertEquals(0.0, closedIdle());
        answer(HttpResponseStatus.OK);
        idle();
        assertFalse(channel.isOpen());
        assertEquals(1.0, closedIdle());
    }

    @Test
    void closesAClientThatStopsHalfWayThroughItsRequest() {
        channel.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/downlink"));
        channel.releaseInbound();
        idle();
        assertFalse(channel.isOpen(), "headers without the end of the body owe the client nothing yet");
    }

    @Test
    void anAnswerWrittenBeforeTheRequestEndedSettlesIt() {
        channel.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/downlink"));
        answer(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
        channel.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.releaseInbound();
        idle();
        assertFalse(channel.isOpen());
    }

    @Test
    void aContinueIsNotTheAnswer() {
        channel.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/downlink"));
        answer(HttpResponseStatus.CONTINUE);
        channel.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.releaseInbound();
        idle();
        assertTrue(channel.isOpen());
        answer(HttpResponseStatus.OK);
        idle();
        assertFalse(channel.isOpen());
    }
}
