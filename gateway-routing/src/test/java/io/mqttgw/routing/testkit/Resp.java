package io.mqttgw.routing.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One Redis command (or a few, pipelined) on a fresh connection, for setting up and steering test topologies
 * (cluster slots, sentinel state, killing a master's view) without a client library whose own topology logic would be
 * under test too. Answers: String (simple and bulk strings), Long, List, null; an error reply throws.
 */
public final class Resp {
    private Resp() {
    }

    public static Object call(int port, String... args) {
        return pipeline(port, List.of(List.of(args))).get(0);
    }

    /** Several commands on one fresh connection, sent at once: their answers in order (an error reply throws). */
    public static List<Object> pipeline(int port, List<List<String>> commands) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            for (List<String> args : commands) {
                request.write(("*" + args.size() + "\r\n").getBytes(StandardCharsets.UTF_8));
                for (String a : args) {
                    byte[] b = a.getBytes(StandardCharsets.UTF_8);
                    request.write(("$" + b.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                    request.write(b);
                    request.write("\r\n".getBytes(StandardCharsets.UTF_8));
                }
            }
            out.write(request.toByteArray());
            out.flush();
            InputStream in = new BufferedInputStream(s.getInputStream());
            List<Object> answers = new ArrayList<>(commands.size());
            for (int i = 0; i < commands.size(); i++) {
                answers.add(read(in));
            }
            return answers;
        } catch (IOException e) {
            String first = commands.isEmpty() ? "" : String.join(" ", commands.get(0));
            throw new IllegalStateException("redis on port " + port + ": " + first
                    + (commands.size() > 1 ? " and " + (commands.size() - 1) + " more" : "") + ": " + e, e);
        }
    }

    /** The answer as text ({@code INFO}, {@code CLUSTER NODES}, ...). */
    public static String text(int port, String... args) {
        return String.valueOf(call(port, args));
    }

    /** A field of an {@code INFO} or {@code CLUSTER INFO} answer, or "" when absent. */
    public static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "";
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(n + 2);
                return new String(b, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply type " + type);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.write(c);
        }
        in.read();
        return b.toString(StandardCharsets.UTF_8);
    }
}
