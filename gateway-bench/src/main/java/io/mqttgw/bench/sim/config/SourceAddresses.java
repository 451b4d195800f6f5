package io.mqttgw.bench.sim.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Local addresses the client binds its sockets to, so that one client goes past the ~28k ephemeral ports of a
 * single address (ports are per source address). Written as a comma-separated list of IPv4 addresses and ranges,
 * e.g. {@code 127.0.0.2-127.0.0.250,10.0.0.5}, or {@code none} to let the kernel choose. Immutable.
 */
public record SourceAddresses(List<InetAddress> addresses) {
    /** Longest list accepted, so a typo like 10.0.0.0-10.255.255.255 fails fast instead of filling memory. */
    public static final int MAX_ADDRESSES = 65_536;

    public SourceAddresses {
        addresses = List.copyOf(addresses);
    }

    public static SourceAddresses none() {
        return new SourceAddresses(List.of());
    }

    public boolean isEmpty() {
        return addresses.isEmpty();
    }

    public int size() {
        return addresses.size();
    }

    /** The addresses at positions {@code worker}, {@code worker + count}, ...: disjoint slices, one per worker. */
    public SourceAddresses slice(int worker, int count) {
        if (addresses.size() < count) {
            return this;
        }
        List<InetAddress> mine = new ArrayList<>();
        for (int i = worker; i < addresses.size(); i += count) {
            mine.add(addresses.get(i));
        }
        return new SourceAddresses(mine);
    }

    public static SourceAddresses parse(String option, String text) {
        if (text.equals("none")) {
            return none();
        }
        List<InetAddress> out = new ArrayList<>();
        for (String part : text.split(",")) {
            part = part.trim();
            int dash = part.indexOf('-');
            if (dash < 0) {
                out.add(address(option, part));
                continue;
            }
            long from = toLong(ipv4(option, part.substring(0, dash)));
            long to = toLong(ipv4(option, part.substring(dash + 1)));
            if (to < from) {
                throw new BadArgumentException("--" + option + " = '" + part + "': the range ends before it starts");
            }
            if (out.size() + (to - from + 1) > MAX_ADDRESSES) {
                throw new BadArgumentException("--" + option + " = '" + text + "' has more than " + MAX_ADDRESSES
                        + " addresses");
            }
            for (long a = from; a <= to; a++) {
                out.add(fromLong(a));
            }
        }
        if (out.size() > MAX_ADDRESSES) {
            throw new BadArgumentException("--" + option + " = '" + text + "' has more than " + MAX_ADDRESSES
                    + " addresses");
        }
        return new SourceAddresses(out);
    }

    private static InetAddress address(String option, String text) {
        try {
            return InetAddress.getByAddress(ipv4(option, text));
        } catch (UnknownHostException e) {
            throw new BadArgumentException("--" + option + ": '" + text + "' is not an IPv4 address");
        }
    }

    private static byte[] ipv4(String option, String text) {
        String[] parts = text.trim().split("\\.", -1);
        if (parts.length != 4) {
            throw new BadArgumentException("--" + option + ": '" + text + "' is not an IPv4 address like 127.0.0.2");
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v;
            try {
                v = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                v = -1;
            }
            if (v < 0 || v > 255) {
                throw new BadArgumentException("--" + option + ": '" + text
                        + "' is not an IPv4 address like 127.0.0.2");
            }
            b[i] = (byte) v;
        }
        return b;
    }

    private static long toLong(byte[] b) {
        return ((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL);
    }

    private static InetAddress fromLong(long a) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8),
                (byte) a});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
