package dev.tributary.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of a real server, which a test can cut, slow down or hang, and
 * restore: while cut, open connections are closed and new ones are refused at once, as a server
 * that went away; while slowed, every chunk of a request waits before it is passed on; while hung,
 * connections are accepted and nothing is ever answered, as a server that froze.
 */
public final class TcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean up = true;
  private volatile boolean hung;
  private volatile Duration delay = Duration.ZERO;

  public TcpProxy(int targetPort) throws IOException {
    this(0, targetPort);
  }

  /** A proxy on {@code port} (0: any free one). */
  public TcpProxy(int port, int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "tcp-proxy-" + targetPort);
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  public void cut() {
    up = false;
    sockets.forEach(TcpProxy::closeQuietly);
    sockets.clear();
  }

  /** Every request chunk waits this long before it reaches the server. */
  public void delay(Duration delay) {
    this.delay = delay;
  }

  /** Accepts connections and passes nothing on, in either direction, until restored. */
  public void hang() {
    hung = true;
  }

  public void restore() {
    up = true;
    hung = false;
    delay = Duration.ZERO;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (!up) {
          closeQuietly(client);
          continue;
        }
        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(target);
        pump(client, target, true);
        pump(target, client, false);
      } catch (IOException e) {
        // Closed, or the target refused: the client sees its connection end.
      }
    }
  }

  private void pump(Socket from, Socket to, boolean request) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  while (hung && !from.isClosed()) {
                    Thread.sleep(50);
                  }
                  Duration wait = delay;
                  if (request && !wait.isZero()) {
                    Thread.sleep(wait.toMillis());
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (IOException e) {
                // One side closed.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    cut();
    server.close();
  }
}
