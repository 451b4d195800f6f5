package io.mqttgw.core.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test during which a thread whose name starts with one of the given prefixes died of an uncaught exception.
 * A client's timer or pool thread that dies only prints a line, and whatever it served (timeouts, retries) silently
 * stops for the rest of the run while the tests still pass. Register as a static {@code @RegisterExtension} field;
 * for the class's duration it is the JVM's default uncaught-exception handler, which records the matching threads'
 * exceptions and passes every exception on as before (to the handler it replaced, or printed as the JVM does).
 * Thread-safe.
 */
public final class UncaughtExceptionsExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private final String[] prefixes;
    /** Each a thread's name and what it died of. */
    private final Queue<Object[]> recorded = new ConcurrentLinkedQueue<>();
    private Thread.UncaughtExceptionHandler previous;

    private UncaughtExceptionsExtension(String[] prefixes) {
        this.prefixes = prefixes.clone();
    }

    /** Watches the threads whose names start with any of {@code prefixes}. */
    public static UncaughtExceptionsExtension inThreads(String... prefixes) {
        return new UncaughtExceptionsExtension(prefixes);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(this::uncaught);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Thread.setDefaultUncaughtExceptionHandler(previous);
        check(context);
    }

    private void uncaught(Thread thread, Throwable error) {
        // Nothing before the record may load a class (no string concatenation, no streams, no iterator): on a thread
        // whose BlockHound state never got initialised, which is one of the deaths this catches, loading a class
        // makes BlockHound recurse until this handler itself dies of a StackOverflowError.
        String name = thread.getName();
        for (String prefix : prefixes) {
            if (name.startsWith(prefix)) {
                recorded.add(new Object[] {name, error});
                break;
            }
        }
        if (previous != null) {
            previous.uncaughtException(thread, error);
        } else {
            System.err.print("Exception in thread \"" + name + "\" ");
            error.printStackTrace(System.err);
        }
    }

    private void check(ExtensionContext context) {
        List<String> died = new ArrayList<>();
        for (Object[] r = recorded.poll(); r != null; r = recorded.poll()) {
            StringWriter trace = new StringWriter();
            ((Throwable) r[1]).printStackTrace(new PrintWriter(trace));
            died.add("thread " + r[0] + " died of " + trace);
        }
        if (!died.isEmpty()) {
            fail(died.size() + " thread(s) named " + String.join(" or ", prefixes) + "* died of an uncaught exception "
                    + "during or before " + context.getDisplayName() + ":\n" + String.join("\n", died));
        }
    }
}
