package dev.room;

import static dev.room.WaitingRoomFilter.COMMAND_HEADER;

import dev.room.spi.SessionStore;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A gated request let through to the application: without a slot, holding one, or in a session.
 * Whatever holds the slot gives it back exactly once, when the response completes, async or not.
 */
final class Passage {
  private Passage() {}

  /** The gate is off: no slot, and a {@value WaitingRoomFilter#COMMAND_HEADER} is stripped. */
  static void free(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    CommandResponse stripped = new CommandResponse(res);
    chain.doFilter(new CommandRequest(req, stripped), stripped);
  }

  /**
   * Runs the application holding a slot; gives it back exactly once when the response is done,
   * after reporting the request's latency and outcome to the room's capacity controller. A {@value
   * WaitingRoomFilter#COMMAND_HEADER} header is stripped: there is no session to end.
   */
  static void holdingSlot(
      WaitingRoom r, HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    long started = r.clock().millis();
    CommandResponse wrapped = new CommandResponse(res);
    boolean threw = true;
    try {
      chain.doFilter(new CommandRequest(req, wrapped), wrapped);
      threw = false;
    } finally {
      if (req.isAsyncStarted()) {
        whenComplete(req, () -> release(r, started, res.getStatus() >= 500));
      } else {
        release(r, started, threw || res.getStatus() >= 500);
      }
    }
  }

  /** Reports a finished request, then gives its slot back, whatever the report did. */
  private static void release(WaitingRoom r, long started, boolean failed) {
    try {
      r.sampled(started, failed);
    } finally {
      r.exit();
    }
  }

  /**
   * Runs a request of a live session; the session holds the slot, so the request takes none. The
   * grant is (re-)sent whenever the session would outlive the client's grant, so the two expire
   * together; a {@value WaitingRoomFilter#COMMAND_HEADER} response header is stripped and, once the
   * response completes, acted on, whatever the health sample did.
   */
  static void inSession(
      WaitingRoom r,
      SessionStore.Session s,
      long grantExpiresAt,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    Sessions sessions = r.sessions();
    long now = r.clock().millis();
    long until = sessions.renew(s, now, grantExpiresAt);
    if (until != Sessions.NO_GRANT) {
      long seconds = (until - now + 999) / 1000;
      Cookies.sendGrant(req, res, r, sessions.grant(s, now, until), seconds);
    }
    req.setAttribute(WaitingRoomFilter.SESSION_ATTRIBUTE, s.id());
    CommandResponse wrapped = new CommandResponse(res);
    sessions.requests().incrementAndGet();
    boolean[] threw = {true};
    Runnable done =
        () -> {
          try {
            r.sampled(now, threw[0] || wrapped.getStatus() >= 500);
          } finally {
            sessions.requests().decrementAndGet();
            String command = wrapped.command;
            if ("revoke".equalsIgnoreCase(command)) {
              sessions.end(s, "revoked");
            } else if ("complete".equalsIgnoreCase(command)) {
              sessions.end(s, "completed");
            }
          }
        };
    try {
      chain.doFilter(new CommandRequest(req, wrapped), wrapped);
      threw[0] = false;
    } finally {
      whenComplete(req, done);
    }
  }

  /** Runs {@code done} once, when the response is complete (now, or when async work ends). */
  private static void whenComplete(HttpServletRequest req, Runnable done) {
    if (req.isAsyncStarted()) {
      Once once = new Once(done);
      try {
        req.getAsyncContext().addListener(once);
      } catch (IllegalStateException completedMeanwhile) {
        once.run();
      }
    } else {
      done.run();
    }
  }

  /** Runs an action once, whichever of complete, error or timeout comes first. */
  private static final class Once implements AsyncListener, Runnable {
    private final Runnable action;
    private final AtomicBoolean done = new AtomicBoolean();

    Once(Runnable action) {
      this.action = action;
    }

    @Override
    public void run() {
      if (done.compareAndSet(false, true)) {
        action.run();
      }
    }

    @Override
    public void onComplete(AsyncEvent event) {
      run();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      run();
    }

    @Override
    public void onError(AsyncEvent event) {
      run();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      AsyncContext ctx = event.getAsyncContext();
      if (ctx != null) {
        ctx.addListener(this);
      }
    }
  }

  /**
   * Hands the application's async work the command-stripping response: {@code startAsync()} with no
   * arguments would otherwise give it the container's own response, past the wrapper.
   */
  private static final class CommandRequest extends HttpServletRequestWrapper {
    private final CommandResponse response;

    CommandRequest(HttpServletRequest req, CommandResponse response) {
      super(req);
      this.response = response;
    }

    @Override
    public AsyncContext startAsync() {
      return getRequest().startAsync(this, response);
    }
  }

  /**
   * Keeps the {@value WaitingRoomFilter#COMMAND_HEADER} header from the client and remembers it.
   */
  private static final class CommandResponse extends HttpServletResponseWrapper {
    volatile String command;

    CommandResponse(HttpServletResponse res) {
      super(res);
    }

    @Override
    public void setHeader(String name, String value) {
      if (COMMAND_HEADER.equalsIgnoreCase(name)) {
        command = value;
      } else {
        super.setHeader(name, value);
      }
    }

    @Override
    public void addHeader(String name, String value) {
      if (COMMAND_HEADER.equalsIgnoreCase(name)) {
        command = value;
      } else {
        super.addHeader(name, value);
      }
    }
  }
}
