package io.mqttgw.core.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A device that writes raw bytes, for inputs no MQTT library will produce (bad UTF-8, QoS 3, reserved flags) and for
 * exact checks of what the gateway answers. Over TLS with a client certificate, or plain TCP.
 */
public final class RawMqttConnection implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawMqttConnection(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(5000);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    public static RawMqttConnection tls(SSLContext context, int port) throws IOException {
        return tls(context, port, (String[]) null);
    }

    /** Over TLS, offering only {@code protocols} (e.g. TLSv1.2), or the defaults when null. */
    public static RawMqttConnection tls(SSLContext context, int port, String... protocols) throws IOException {
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        if (protocols != null) {
            s.setEnabledProtocols(protocols);
        }
        s.startHandshake();
        return new RawMqttConnection(s);
    }

    public static RawMqttConnection tcp(int port) throws IOException {
        return new RawMqttConnection(new Socket("127.0.0.1", port));
    }

    /**
     * Plain TCP with a small socket receive buffer (set before connecting, so the TCP window stays small): a device
     * that does not read fills it, and then the gateway's side, quickly.
     */
    public static RawMqttConnection tcpWithReceiveBuffer(int port, int receiveBufferBytes) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(receiveBufferBytes);
        s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5000);
        return new RawMqttConnection(s);
    }

    public Socket socket() {
        return socket;
    }

    public RawMqttConnection send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Sends CONNECT (MQTT 3.1.1, clean session) and returns the CONNACK return code. */
    public int connect(String clientId, int keepAliveSeconds) throws IOException {
        send(connectPacket(clientId, keepAliveSeconds, 4));
        byte[] connack = readPacket();
        if ((connack[0] & 0xF0) != 0x20) {
            throw new AssertionError("expected CONNACK, got type " + (connack[0] >> 4 & 0xF));
        }
        return connack[connack.length - 1];
    }

    /** Sends CONNECT (MQTT 3.1.1) and returns the CONNACK: byte 2 holds session present, byte 3 the return code. */
    public byte[] connect(String clientId, int keepAliveSeconds, boolean cleanSession) throws IOException {
        byte[] connect = connectPacket(clientId, keepAliveSeconds, 4);
        if (!cleanSession) {
            // the connect flags follow the two-byte fixed header, "MQTT" (2 + 4 bytes) and the protocol level
            connect[2 + 6 + 1] = 0x00;
        }
        send(connect);
        byte[] connack = readPacket();
        if ((connack[0] & 0xF0) != 0x20) {
            throw new AssertionError("expected CONNACK, got type " + (connack[0] >> 4 & 0xF));
        }
        return connack;
    }

    /** Sends an MQTT 5.0 CONNECT (clean start, no properties) and returns the CONNACK reason code. */
    public int connect5(String clientId, int keepAliveSeconds) throws IOException {
        ByteArrayOutputStream variable = new ByteArrayOutputStream();
        writeString(variable, "MQTT");
        variable.write(5);
        variable.write(0x02);
        variable.write(keepAliveSeconds >> 8);
        variable.write(keepAliveSeconds & 0xFF);
        variable.write(0);
        writeString(variable, clientId);
        send(packet(0x10, variable.toByteArray()));
        byte[] connack = readPacket();
        if ((connack[0] & 0xF0) != 0x20) {
            throw new AssertionError("expected CONNACK, got type " + (connack[0] >> 4 & 0xF));
        }
        // type, remaining length (one byte below 128), flags, reason code
        return connack[3] & 0xFF;
    }

    /** Reads packets until a DISCONNECT and returns its reason code (0 when it has none). */
    public int readDisconnect() throws IOException {
        while (true) {
            byte[] p = readPacket();
            if ((p[0] & 0xF0) == 0xE0) {
                return p.length > 2 ? p[2] & 0xFF : 0;
            }
        }
    }

    public static byte[] connectPacket(String clientId, int keepAliveSeconds, int protocolLevel) {
        ByteArrayOutputStream variable = new ByteArrayOutputStream();
        writeString(variable, "MQTT");
        variable.write(protocolLevel);
        variable.write(0x02);
        variable.write(keepAliveSeconds >> 8);
        variable.write(keepAliveSeconds & 0xFF);
        writeString(variable, clientId);
        return packet(0x10, variable.toByteArray());
    }

    /** A PUBLISH with the given first byte (type and flags), topic bytes, packet id (omitted when negative). */
    public static byte[] publishPacket(int firstByte, byte[] topic, int packetId, byte[] payload) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(topic.length >> 8);
        body.write(topic.length & 0xFF);
        body.writeBytes(topic);
        if (packetId >= 0) {
            body.write(packetId >> 8);
            body.write(packetId & 0xFF);
        }
        body.writeBytes(payload);
        return packet(firstByte, body.toByteArray());
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] packet(int firstByte, byte[] body) {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(firstByte);
        int len = body.length;
        do {
            int digit = len % 128;
            len /= 128;
            p.write(len > 0 ? digit | 0x80 : digit);
        } while (len > 0);
        p.writeBytes(body);
        return p.toByteArray();
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = utf8(s);
        out.write(b.length >> 8);
        out.write(b.length & 0xFF);
        out.writeBytes(b);
    }

    /** Reads one whole packet (fixed header included); fails on EOF or after the socket timeout. */
    public byte[] readPacket() throws IOException {
        int first = in.read();
        if (first < 0) {
            throw new EOFException("connection closed by the gateway");
        }
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(first);
        int len = 0;
        int shift = 0;
        int b;
        do {
            b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed inside a packet");
            }
            p.write(b);
            len |= (b & 0x7F) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        p.writeBytes(in.readNBytes(len));
        return p.toByteArray();
    }

    /** True when the gateway closes the connection within {@code millis}; bytes it sends meanwhile are skipped. */
    public boolean closedWithin(long millis) throws IOException {
        long deadline = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < deadline) {
            socket.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
            try {
                if (in.read() < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                return true;
            } catch (javax.net.ssl.SSLException e) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
