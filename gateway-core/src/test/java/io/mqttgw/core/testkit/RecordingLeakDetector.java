package io.mqttgw.core.testkit;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector that also records every report, so {@link LeakDetectionExtension} can fail the tests.
 * Installed by the build with {@code -Dio.netty.customResourceLeakDetector}; the level is PARANOID in tests.
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** The constructor Netty looks for first; without it, it logs a NoSuchMethodException before using the other. */
    @SuppressWarnings("deprecation")
    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + " leaked:" + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType + " leaked (untraced)");
        super.reportUntracedLeak(resourceType);
    }
}
