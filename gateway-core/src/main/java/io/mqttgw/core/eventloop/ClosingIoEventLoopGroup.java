package io.mqttgw.core.eventloop;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * Netty's I/O event loops with one change: a loop closes every channel it still holds right before it confirms its
 * shutdown.
 *
 * <p>Netty's loop checks whether it is shutting down right after its I/O step (and closes its channels then), but it
 * confirms the shutdown after its tasks. A shutdown that begins between the two, while the loop is busy (the last
 * bytes of a device that just left, a listener's close, an admin request), is confirmed at once with a quiet period
 * of 0, and the loop stops with its channels open: their sockets stay open and their pipelines are never torn down,
 * so each TLS engine, and through it the listener's SSL context, is never released. Closing them again when the
 * shutdown is confirmed costs a stopping loop one more look at its registrations and a running loop nothing; the
 * confirmation then runs the tasks that tear the pipelines down, while the loop still accepts tasks.
 *
 * <p>Serves the device listeners' accept and I/O loops and the admin plane's loop, whatever their transport. Made and
 * shut down by the thread that starts and stops the node; the override runs on the stopping loop itself.
 */
public final class ClosingIoEventLoopGroup extends MultiThreadIoEventLoopGroup {
    public ClosingIoEventLoopGroup(int threads, ThreadFactory threadFactory, IoHandlerFactory ioHandlerFactory) {
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
        protected boolean confirmShutdown() {
            // once shut down for good no task is taken any more: a channel closed then could not tear its pipeline
            // down, so the channels are closed only while the confirmation still runs the tasks that do
            if (isShuttingDown() && !isShutdown()) {
                ioHandler().prepareToDestroy();
            }
            return super.confirmShutdown();
        }
    }
}
