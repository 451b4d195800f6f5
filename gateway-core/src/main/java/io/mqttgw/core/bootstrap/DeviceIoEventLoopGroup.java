package io.mqttgw.core.bootstrap;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Netty's I/O event loops with one change: a loop closes every channel it still holds right before it confirms its
 * shutdown.
 *
 * <p>Netty's loop checks whether it is shutting down right after its I/O step (and closes its channels then), but it
 * confirms the shutdown after its tasks. A shutdown that begins between the two, while the loop is busy (the last
 * bytes of a device that just left, a listener's close), is confirmed at once with a quiet period of 0, and the loop
 * stops with its channels open: their sockets stay open and their pipelines are never torn down, so each TLS engine,
 * and through it the listener's SSL context, is never released. Here the loop closes its channels again right before
 * it confirms the shutdown, which costs a stopping loop one more look at its registrations and a connection nothing.
 * The rest of {@link ClosingLoop#run} is Netty 4.2's own loop: compare it again when Netty is upgraded.
 */
final class DeviceIoEventLoopGroup extends MultiThreadIoEventLoopGroup {
    /** What Netty's loop gives its tasks per pass; its own copy of the value is private. */
    private static final long TASK_QUANTUM_NANOS = TimeUnit.MILLISECONDS.toNanos(
            Math.max(100, Integer.getInteger("io.netty.eventLoop.maxTaskProcessingQuantumMs", 1000)));

    DeviceIoEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory ioHandlerFactory) {
        super(threads, threadFactory, ioHandlerFactory);
    }

    @Override
    protected IoEventLoop newChild(Executor executor, IoHandlerFactory ioHandlerFactory, Object... args) {
        return new ClosingLoop(this, executor, ioHandlerFactory);
    }

    private static final class ClosingLoop extends SingleThreadIoEventLoop {
        ClosingLoop(IoEventLoopGroup parent, Executor executor, IoHandlerFactory ioHandlerFactory) {
            super(parent, executor, ioHandlerFactory);
        }

        @Override
        protected void run() {
            ioHandler().initialize();
            do {
                runIo();
                if (isShuttingDown()) {
                    ioHandler().prepareToDestroy();
                }
                runAllTasks(TASK_QUANTUM_NANOS);
            } while (!closedAndConfirmed() && !canSuspend());
        }

        /**
         * Whether the loop may stop now. The shutdown may have begun after the check in this pass, and a task may have
         * registered a channel since (one an accept thread handed over before it closed): the channels are closed
         * here, and their pipelines torn down by the tasks the confirmation runs.
         */
        private boolean closedAndConfirmed() {
            if (!isShuttingDown()) {
                return false;
            }
            ioHandler().prepareToDestroy();
            return confirmShutdown();
        }
    }
}
