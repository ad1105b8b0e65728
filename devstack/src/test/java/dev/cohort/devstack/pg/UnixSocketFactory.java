package dev.cohort.devstack.pg;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Properties;
import javax.net.SocketFactory;

/**
 * pgjdbc over a PostgreSQL Unix socket, with the JDK's own Unix-domain channels: the connection property
 * {@code socketFactory} names this class and {@value #PATH} the socket file ({@code <dir>/.s.PGSQL.<port>}); the host
 * and port of the URL are then ignored. pgjdbc calls {@link #createSocket()} and connects the socket it gets.
 */
public final class UnixSocketFactory extends SocketFactory {

    /** The connection property with the socket file's path. */
    public static final String PATH = "cohortUnixSocket";

    private final Path path;

    public UnixSocketFactory(Properties info) {
        this.path = Path.of(info.getProperty(PATH));
    }

    /** Connection properties for pgjdbc over the socket {@code socket}, with the user and, unless null, the password. */
    static Properties properties(Path socket, String user, String password) {
        Properties p = new Properties();
        p.setProperty("socketFactory", UnixSocketFactory.class.getName());
        p.setProperty(PATH, socket.toString());
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        // no TLS and no GSS encryption to negotiate: a Unix socket is not TCP
        p.setProperty("sslmode", "disable");
        p.setProperty("gssEncMode", "disable");
        return p;
    }

    @Override
    public Socket createSocket() {
        return new UnixSocket(path);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected();
    }

    private Socket connected() throws IOException {
        Socket s = new UnixSocket(path);
        s.connect(null);
        return s;
    }

    /** A {@link Socket} as far as pgjdbc uses one, over a Unix-domain {@link SocketChannel}; TCP options are no-ops. */
    private static final class UnixSocket extends Socket {
        private final Path path;
        private SocketChannel channel;
        private InputStream in;
        private OutputStream out;

        UnixSocket(Path path) {
            this.path = path;
        }

        @Override
        public void connect(SocketAddress ignored) throws IOException {
            connect(ignored, 0);
        }

        @Override
        public void connect(SocketAddress ignored, int timeout) throws IOException {
            channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
            in = Channels.newInputStream(channel);
            out = Channels.newOutputStream(channel);
        }

        @Override
        public boolean isConnected() {
            return channel != null && channel.isConnected();
        }

        @Override
        public boolean isClosed() {
            return channel != null && !channel.isOpen();
        }

        @Override
        public InputStream getInputStream() {
            return in;
        }

        @Override
        public OutputStream getOutputStream() {
            return out;
        }

        @Override
        public void setTcpNoDelay(boolean on) {
        }

        @Override
        public boolean getTcpNoDelay() {
            return true;
        }

        @Override
        public void setSoTimeout(int timeout) {
        }

        @Override
        public int getSoTimeout() {
            return 0;
        }

        @Override
        public void setKeepAlive(boolean on) {
        }

        @Override
        public boolean getKeepAlive() {
            return false;
        }

        @Override
        public void setSendBufferSize(int size) {
        }

        @Override
        public int getSendBufferSize() {
            return 8192;
        }

        @Override
        public void setReceiveBufferSize(int size) {
        }

        @Override
        public int getReceiveBufferSize() {
            return 8192;
        }

        @Override
        public void close() throws IOException {
            if (channel != null) {
                channel.close();
            }
        }
    }
}
