package io.mqttgw.core.mqtt.session;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * MQTT 5.0 wills waiting for their will delay interval, by session key, on this node: a will is published when its
 * delay has passed, at once when a clean start ends its session, never when a connection resumes the session first.
 * Each waits as a task on the event loop of the connection that ended; the map decides once, atomically, between the
 * task and a new connection on another loop. At most {@code session.max-sessions} wait: past that a will is published
 * at once (counted), as are all at shutdown. A will whose session resumes on another node is not seen here: it is
 * published after its delay (documented). Thread-safe.
 */
public final class DelayedWills {
    /** One waiting will: what publishes it and the task that will. */
    private static final class Waiting {
        final Runnable publish;
        ScheduledFuture<?> timer;

        Waiting(Runnable publish) {
            this.publish = publish;
        }
    }

    private final ConcurrentHashMap<String, Waiting> waiting = new ConcurrentHashMap<>();
    private final int max;
    private final LongAdder overflow = new LongAdder();
    /** Set by {@link #publishAll}: a will scheduled later (a store's failed answer at shutdown) goes out at once. */
    private volatile boolean closed;

    public DelayedWills(int max) {
        this.max = max;
    }

    /** Publishes {@code publish} after {@code delaySeconds} unless the session of {@code sessionKey} resumes first. */
    public void schedule(String sessionKey, EventLoop loop, int delaySeconds, Runnable publish) {
        if (closed) {
            publish.run();
            return;
        }
        if (waiting.size() >= max) {
            overflow.increment();
            publish.run();
            return;
        }
        Waiting w = new Waiting(publish);
        Waiting before = waiting.put(sessionKey, w);
        if (before != null && before.timer != null) {
            // an older connection's will still waiting: that session ended, so its will goes out now
            before.timer.cancel(false);
            before.publish.run();
        }
        w.timer = loop.schedule(() -> {
            if (waiting.remove(sessionKey, w)) {
                publish.run();
            }
        }, delaySeconds, TimeUnit.SECONDS);
    }

    /** A connection resumed the session: its waiting will, if any, is not published. */
    public void cancel(String sessionKey) {
        Waiting w = waiting.remove(sessionKey);
        if (w != null && w.timer != null) {
            w.timer.cancel(false);
        }
    }

    /** A clean start ended the session: its waiting will, if any, is published now. */
    public void publishNow(String sessionKey) {
        Waiting w = waiting.remove(sessionKey);
        if (w != null) {
            if (w.timer != null) {
                w.timer.cancel(false);
            }
            w.publish.run();
        }
    }

    /** The node shuts down and can no longer see a device come back: every waiting will is published now. */
    public void publishAll() {
        closed = true;
        for (String sessionKey : waiting.keySet()) {
            publishNow(sessionKey);
        }
    }

    /** Wills waiting now. */
    public int size() {
        return waiting.size();
    }

    /** Wills published at once because {@code max} were waiting. */
    public long overflowCount() {
        return overflow.sum();
    }
}
