package io.mqttgw.bench.sim.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * One gateway node of a fleet the bench balances devices over: its MQTT-over-TLS address and, optionally, the URL
 * whose answer says whether it takes new devices ({@code /health/ready}; without one the bench probes the port).
 * Written {@code HOST:PORT} or {@code HOST:PORT/ADMIN_PORT} (ready URL {@code http://HOST:ADMIN_PORT/health/ready})
 * or {@code HOST:PORT@URL}. Immutable.
 */
public record GatewayNode(String host, int port, URI ready) {
    /** {@code text} split at commas into nodes, in order; the node index in reports is the position here. */
    public static List<GatewayNode> parseList(String option, String text) {
        List<GatewayNode> out = new ArrayList<>();
        for (String part : text.split(",")) {
            out.add(parse(option, part.trim()));
        }
        if (out.isEmpty()) {
            throw new BadArgumentException("--" + option + " is empty; write HOST:PORT[/ADMIN_PORT],...");
        }
        return List.copyOf(out);
    }

    static GatewayNode parse(String option, String text) {
        String address = text;
        URI ready = null;
        int at = text.indexOf('@');
        if (at >= 0) {
            address = text.substring(0, at);
            try {
                ready = URI.create(text.substring(at + 1));
            } catch (IllegalArgumentException e) {
                throw new BadArgumentException("--" + option + ": '" + text + "' has no valid URL after @");
            }
            if (!"http".equals(ready.getScheme()) && !"https".equals(ready.getScheme())) {
                throw new BadArgumentException("--" + option + ": '" + text + "': the ready URL must be http(s)");
            }
        }
        int slash = address.indexOf('/');
        String admin = null;
        if (slash >= 0) {
            admin = address.substring(slash + 1);
            address = address.substring(0, slash);
        }
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new BadArgumentException("--" + option + ": '" + text + "' is not HOST:PORT[/ADMIN_PORT]");
        }
        String host = address.substring(0, colon);
        int port = port(option, text, address.substring(colon + 1));
        if (admin != null) {
            if (ready != null) {
                throw new BadArgumentException("--" + option + ": '" + text + "': give /ADMIN_PORT or @URL, not both");
            }
            ready = URI.create("http://" + host + ":" + port(option, text, admin) + "/health/ready");
        }
        return new GatewayNode(host, port, ready);
    }

    private static int port(String option, String text, String value) {
        try {
            int p = Integer.parseInt(value);
            if (p >= 1 && p <= 65_535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadArgumentException("--" + option + ": '" + text + "': '" + value + "' is not a port (1 to 65535)");
    }

    /** {@code host:port}, as the live line and the report name the node. */
    public String address() {
        return host + ":" + port;
    }
}
