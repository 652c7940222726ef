package dev.tributary.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on loopback, for servers that cannot bind port 0 and report it back.
 *
 * <p>Ports are drawn from 20000-32767, below Linux's ephemeral range (32768-60999): a port handed
 * out here can then not be taken, between the check and the server's bind, by any of the many
 * sockets the stack's components bind to port 0 while starting in parallel (a Kafka listener once
 * lost its port to one). A port is handed out at most once per JVM.
 */
public final class FreePorts {

  private static final int FIRST = 20_000;
  private static final int LAST = 32_767;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  public static int next() {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(FIRST, LAST + 1);
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
        return port;
      } catch (IOException e) {
        // taken: try another
      }
    }
    throw new IllegalStateException("No free port on loopback in " + FIRST + "-" + LAST);
  }
}
