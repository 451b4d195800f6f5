package io.mqttgw.bench.sim.config;

/** The MQTT protocol the simulated devices speak; written {@code 3.1.1} or {@code 5} on the command line. */
public enum MqttVersion {
    V3_1_1("3.1.1"),
    V5("5");

    private final String label;

    MqttVersion(String label) {
        this.label = label;
    }

    /** As typed on the command line and shown in the report: {@code 3.1.1} or {@code 5}. */
    public String label() {
        return label;
    }

    public static MqttVersion ofLabel(String text) {
        for (MqttVersion v : values()) {
            if (v.label.equals(text) || (v == V5 && text.equals("5.0"))) {
                return v;
            }
        }
        throw new BadArgumentException("--mqtt-version = '" + text + "'; allowed: 3.1.1 or 5");
    }
}
