package io.mqttgw.core.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Address ranges (CIDR, IPv4 and IPv6) allowed to send a PROXY header: only a balancer may claim to speak for a
 * device's address. Immutable and thread-safe.
 */
public final class TrustedSources {
    private record Range(byte[] network, int prefix) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = 0xFF << (8 - rest) & 0xFF;
            return (address[full] & mask) == (network[full] & mask);
        }
    }

    private final List<Range> ranges;

    private TrustedSources(List<Range> ranges) {
        this.ranges = List.copyOf(ranges);
    }

    /**
     * @param cidrs entries like {@code 10.0.0.0/8}, {@code 127.0.0.1} (a single address) or {@code ::1/128}
     * @throws IllegalArgumentException naming the entry that is not an IP address or range
     */
    public static TrustedSources parse(List<String> cidrs) {
        List<Range> ranges = new ArrayList<>();
        for (String cidr : cidrs) {
            int slash = cidr.indexOf('/');
            String ip = slash < 0 ? cidr : cidr.substring(0, slash);
            if (!ip.matches("[0-9a-fA-F:.]+")) {
                throw new IllegalArgumentException("'" + cidr + "' is not an IP address or CIDR range");
            }
            byte[] network;
            try {
                network = InetAddress.getByName(ip).getAddress();
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("'" + cidr + "' is not an IP address or CIDR range");
            }
            int prefix;
            try {
                prefix = slash < 0 ? network.length * 8 : Integer.parseInt(cidr.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + cidr + "' has no prefix length after '/'");
            }
            if (prefix < 0 || prefix > network.length * 8) {
                throw new IllegalArgumentException("'" + cidr + "' has a prefix length out of range");
            }
            ranges.add(new Range(network, prefix));
        }
        return new TrustedSources(ranges);
    }

    public boolean trusts(SocketAddress peer) {
        if (!(peer instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return false;
        }
        byte[] address = inet.getAddress().getAddress();
        for (Range r : ranges) {
            if (r.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
