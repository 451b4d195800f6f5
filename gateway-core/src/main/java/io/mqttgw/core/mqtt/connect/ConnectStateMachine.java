package io.mqttgw.core.mqtt.connect;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * Where one connection's CONNECT stands ({@link ConnectState}) and how a step waits for an asynchronous answer: the
 * moves the states allow, the bounded wait with reading paused, and the rule that an answer counts only while the
 * state is still the one it was awaited in. {@link MqttConnectHandler} holds the steps themselves; this is its
 * superclass rather than a collaborator so a connection's CONNECT costs no extra object.
 *
 * <p>One instance per connection; event loop only: every answer and deadline re-enters on the channel's loop before
 * it touches the state.
 */
abstract class ConnectStateMachine extends ChannelInboundHandlerAdapter {
    /** What a wait that ended by its deadline answers: no value, this error. */
    private static final TimeoutException TIMED_OUT = new TimeoutException("no answer in time");

    private ConnectState state = ConnectState.AWAITING_CONNECT;
    /** The deadline of the answer awaited in the current state, or null. */
    private ScheduledFuture<?> deadline;

    final ConnectState state() {
        return state;
    }

    /**
     * Enters {@code waiting} until {@code stage} answers. An answer there already is taken now; otherwise reading is
     * paused (nothing the device sends meanwhile may reach a handler before the decision; the accepting CONNACK
     * resumes it), and the answer or the deadline ({@link #TIMED_OUT}), whichever comes first while the state is
     * still {@code waiting}, goes to {@code onAnswer} on this event loop. An answer that comes when the state has
     * moved on goes to {@code late} (may be null: dropped).
     */
    final <T> void await(ChannelHandlerContext ctx, ConnectState waiting, CompletionStage<T> stage,
                         Duration timeout, BiConsumer<T, Throwable> onAnswer, BiConsumer<T, Throwable> late) {
        if (!moveTo(waiting)) {
            return;
        }
        CompletableFuture<T> now = Answers.now(stage);
        if (now != null) {
            if (now.isCompletedExceptionally()) {
                answer(ctx, waiting, null, now.handle((v, e) -> e).join(), onAnswer);
            } else {
                answer(ctx, waiting, now.join(), null, onAnswer);
            }
            return;
        }
        pause(ctx);
        deadline = ctx.executor().schedule(() -> answer(ctx, waiting, null, TIMED_OUT, onAnswer),
                timeout.toMillis(), TimeUnit.MILLISECONDS);
        stage.whenComplete((value, error) -> Answers.onLoop(ctx.executor(), () -> {
            if (!answer(ctx, waiting, value, error, onAnswer) && late != null) {
                late.accept(value, error);
            }
        }));
    }

    /** Hands an answer to its step if the connection still waits for it in {@code waiting}; whether it did. */
    private <T> boolean answer(ChannelHandlerContext ctx, ConnectState waiting, T value, Throwable error,
                               BiConsumer<T, Throwable> onAnswer) {
        if (state != waiting || !ctx.channel().isActive()) {
            return false;
        }
        cancelDeadline();
        onAnswer.accept(value, error);
        return true;
    }

    /**
     * Moves CONNECT on; false when the connection closed meanwhile (the step stops there). Any other move the states
     * do not allow is a bug in the subclass.
     */
    final boolean moveTo(ConnectState next) {
        if (state == ConnectState.ENDED) {
            return false;
        }
        if (!state.mayMoveTo(next)) {
            throw new IllegalStateException("CONNECT cannot go from " + state + " to " + next);
        }
        state = next;
        return true;
    }

    static void pause(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
    }

    /** The channel closed or the handler left: no answer still on its way counts. */
    final void endWaits() {
        cancelDeadline();
        if (!state.terminal()) {
            state = ConnectState.ENDED;
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
