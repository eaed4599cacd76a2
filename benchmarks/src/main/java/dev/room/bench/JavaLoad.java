package dev.room.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fallback load generator when {@code wrk} is not installed: one platform thread per keep-alive
 * connection, each sending the next request as soon as the previous response is read (closed loop),
 * over plain sockets with a minimal HTTP/1.1 parser (status line, {@code Content-Length} body).
 *
 * <p>Slower per request than wrk, so its absolute figures are lower; the ratios it reports are
 * still measured side by side.
 */
final class JavaLoad implements Load.Generator {
  private static final int LATENCY_SAMPLES = 1 << 20;

  private final int connections;

  JavaLoad(int connections) {
    this.connections = connections;
  }

  @Override
  public String describe() {
    return "built-in Java load generator (wrk not found), "
        + connections
        + " keep-alive connections, one thread each";
  }

  @Override
  public Load run(String url, int seconds, int rotateTickets, long firstTicket) throws Exception {
    URI uri = URI.create(url);
    long start = System.nanoTime();
    long deadline = start + seconds * 1_000_000_000L;
    AtomicInteger nextTicket =
        new AtomicInteger(rotateTickets > 0 ? Math.floorMod(firstTicket, rotateTickets) : 0);
    List<Worker> workers = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      Worker w = new Worker(uri, deadline, rotateTickets, nextTicket);
      workers.add(w);
      w.start();
    }
    long requests = 0;
    long non2xx = 0;
    long errors = 0;
    long[] all = new long[0];
    for (Worker w : workers) {
      w.join();
      requests += w.requests;
      non2xx += w.non2xx;
      errors += w.errors;
      int n = (int) Math.min(w.requests, LATENCY_SAMPLES);
      int from = all.length;
      all = Arrays.copyOf(all, from + n);
      System.arraycopy(w.latencies, 0, all, from, n);
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    Arrays.sort(all);
    double p50 = all.length == 0 ? Double.NaN : all[all.length / 2] / 1_000.0;
    double p99 = all.length == 0 ? Double.NaN : all[(int) (all.length * 0.99)] / 1_000.0;
    return new Load(requests / elapsed, p50, p99, requests, non2xx, errors);
  }

  /** One connection in a closed loop. */
  private static final class Worker extends Thread {
    private final URI uri;
    private final long deadline;
    private final int rotate;
    private final AtomicInteger nextTicket;
    final long[] latencies = new long[LATENCY_SAMPLES];
    long requests;
    long non2xx;
    long errors;

    Worker(URI uri, long deadline, int rotate, AtomicInteger nextTicket) {
      super("load-" + uri.getPath());
      this.uri = uri;
      this.deadline = deadline;
      this.rotate = rotate;
      this.nextTicket = nextTicket;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (System.nanoTime() < deadline) {
        try (Socket s = new Socket()) {
          s.setTcpNoDelay(true);
          s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
          s.setSoTimeout(5_000);
          OutputStream out = s.getOutputStream();
          InputStream in = new BufferedInputStream(s.getInputStream(), 16_384);
          while (System.nanoTime() < deadline) {
            long t0 = System.nanoTime();
            out.write(request());
            int status = readResponse(in);
            if (status < 0) {
              errors++;
              break;
            }
            if (status >= 400) {
              non2xx++;
            }
            if (requests < LATENCY_SAMPLES) {
              latencies[(int) requests] = System.nanoTime() - t0;
            }
            requests++;
          }
        } catch (IOException e) {
          errors++;
        }
      }
    }

    private byte[] request() {
      StringBuilder b = new StringBuilder(160);
      b.append("GET ").append(uri.getRawPath()).append(" HTTP/1.1\r\n");
      b.append("Host: ").append(uri.getHost()).append(':').append(uri.getPort()).append("\r\n");
      if (rotate > 0) {
        int i = Math.floorMod(nextTicket.getAndIncrement(), rotate) + 1;
        b.append("Cookie: room_ticket=").append(HttpBench.ticket(i)).append("\r\n");
      }
      b.append("\r\n");
      return b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Reads one response; returns its status, or -1 when the connection closed. */
    private static int readResponse(InputStream in) throws IOException {
      String statusLine = readLine(in);
      if (statusLine == null || statusLine.length() < 12) {
        return -1;
      }
      int status = Integer.parseInt(statusLine.substring(9, 12));
      long length = 0;
      String line;
      while ((line = readLine(in)) != null && !line.isEmpty()) {
        if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
          length = Long.parseLong(line.substring(15).strip());
        }
      }
      if (line == null) {
        return -1;
      }
      for (long skipped = 0; skipped < length; ) {
        long n = in.skip(length - skipped);
        if (n <= 0) {
          if (in.read() < 0) {
            return -1;
          }
          n = 1;
        }
        skipped += n;
      }
      return status;
    }

    private static String readLine(InputStream in) throws IOException {
      StringBuilder b = new StringBuilder(64);
      int c;
      while ((c = in.read()) >= 0) {
        if (c == '\n') {
          int end = b.length();
          return end > 0 && b.charAt(end - 1) == '\r' ? b.substring(0, end - 1) : b.toString();
        }
        b.append((char) c);
      }
      return null;
    }
  }
}
