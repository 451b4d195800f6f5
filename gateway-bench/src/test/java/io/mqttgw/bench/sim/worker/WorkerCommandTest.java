package io.mqttgw.bench.sim.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class WorkerCommandTest {

    @Test
    void commandLinesRoundTrip() {
        for (WorkerCommand c : new WorkerCommand[] {WorkerCommand.start(), WorkerCommand.drop(0.5),
            WorkerCommand.publish(1234.5, 1, 64), WorkerCommand.stopPublishing(), WorkerCommand.stop()}) {
            assertEquals(c, WorkerCommand.parse(c.line()));
        }
    }

    @Test
    void rejectsUnknownAndMalformedCommands() {
        assertThrows(IllegalArgumentException.class, () -> WorkerCommand.parse("explode"));
        assertThrows(IllegalArgumentException.class, () -> WorkerCommand.parse("drop"));
        assertThrows(IllegalArgumentException.class, () -> WorkerCommand.parse("publish x 1 2"));
    }
}
