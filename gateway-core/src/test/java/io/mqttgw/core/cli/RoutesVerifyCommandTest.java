package io.mqttgw.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RoutesVerifyCommandTest {
    @Test
    void differencesRemainUnlessEveryOneWasRepaired() {
        assertEquals(0, RoutesVerifyCommand.remaining("{\"node\":\"n\",\"found\":0,\"repaired\":0}"));
        assertEquals(2, RoutesVerifyCommand.remaining("{\"found\":2,\"repaired\":0,\"differences\":[]}"));
        assertEquals(1, RoutesVerifyCommand.remaining(
                "{\"found\":3,\"repaired\":2,\"differences\":[{\"kind\":\"held_elsewhere\",\"repaired\":false}]}"));
    }
}
