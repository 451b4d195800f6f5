package io.mqttgw.kafka.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Kafka broker shared by the test classes of this module that neither stop nor restart it, registered as a static
 * {@code @RegisterExtension} field: a broker is a child JVM that takes seconds to start, so the first class to ask
 * starts it and the end of the JUnit run stops it (the run's root store closes it). Each class creates topics of its
 * own names. A class that stops, restarts or kills its broker keeps one of its own ({@link KafkaBroker#start}).
 */
public final class SharedKafkaBroker implements BeforeAllCallback {
    private KafkaBroker broker;

    /** The broker, once the class's tests are about to start. */
    public KafkaBroker broker() {
        return broker;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(SharedKafkaBroker.class, key -> Running.start(), Running.class).broker();
    }

    /** The broker and its folder, stopped and deleted when the run ends. */
    private record Running(KafkaBroker broker, Path dir) implements ExtensionContext.Store.CloseableResource {
        static Running start() {
            try {
                Path dir = Files.createTempDirectory("shared-kafka");
                return new Running(KafkaBroker.start(dir.resolve("kafka")), dir);
            } catch (Exception e) {
                throw new IllegalStateException("the shared Kafka broker did not start", e);
            }
        }

        @Override
        public void close() throws IOException {
            broker.close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
