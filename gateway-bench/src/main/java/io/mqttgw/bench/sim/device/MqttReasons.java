package io.mqttgw.bench.sim.device;

import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import java.util.Locale;

/**
 * Failure-reason labels for what the server answers: a refused CONNACK ({@code connack_<reason>}, 3.1.1 return code or
 * 5.0 reason code), a PUBACK with a 5.0 error reason code ({@code puback_<reason>}) and a server DISCONNECT
 * ({@code disconnect_<reason>}). A code Netty does not know is labelled by its hex value. Stateless.
 */
public final class MqttReasons {
    /** Reason codes below this are successes (MQTT 5.0, 2.4). */
    static final int FIRST_ERROR = 0x80;

    private MqttReasons() {
    }

    public static String connack(MqttConnectReturnCode code) {
        // 5.0 codes that share a meaning with a 3.1.1 code carry a _5 suffix in Netty's names; the label drops it
        String name = code.name().toLowerCase(Locale.ROOT).replace("connection_refused_", "refused_");
        return "connack_" + (name.endsWith("_5") ? name.substring(0, name.length() - 2) : name);
    }

    public static String puback(byte code) {
        return "puback_" + name(code, MqttReasonCodes.PubAck::valueOf);
    }

    public static String disconnect(byte code) {
        return "disconnect_" + name(code, MqttReasonCodes.Disconnect::valueOf);
    }

    /** The reason code's name in lower case, or its hex value where Netty has no name for it. */
    private static String name(byte code, java.util.function.Function<Byte, Enum<?>> lookup) {
        Enum<?> known;
        try {
            known = lookup.apply(code);
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            known = null;
        }
        return known == null ? hex(code) : known.name().toLowerCase(Locale.ROOT);
    }

    static boolean isError(byte code) {
        return (code & 0xFF) >= FIRST_ERROR;
    }

    private static String hex(byte code) {
        return String.format(Locale.ROOT, "0x%02x", code & 0xFF);
    }
}
