package dev.room;

import dev.room.Admission.Queued;
import dev.room.Admission.Verdict;
import dev.room.spi.LineUnavailableException;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Puts a {@link WaitingRoom} in front of a servlet application.
 *
 * <p>Every {@code REQUEST} dispatch the filter is mapped to is gated: it runs at once while a slot
 * is free and nobody waits; otherwise the client gets a ticket (the {@code room_ticket} cookie) and
 * the waiting page, which polls {@code GET <status-path>} and reloads into the application when its
 * turn comes. Requests that prefer {@code application/json} to HTML get the status JSON (with 503
 * and {@code Retry-After}) instead of the page. A slot is held until the response completes,
 * including requests that go asynchronous.
 *
 * <p><b>Installing.</b> Programmatically, {@code new WaitingRoomFilter(room)} in embedded Jetty or
 * Tomcat, or in a Spring Boot {@code FilterRegistrationBean}; or in {@code web.xml} with the no-arg
 * constructor and init-params. Register it with {@code asyncSupported=true}. Either way the filter
 * publishes its room as the ServletContext attribute {@value WaitingRoom#CONTEXT_ATTRIBUTE} so the
 * application can reach the admin API. Any number of filters may share one room.
 *
 * <p><b>Init-params.</b> Filter-level, honoured by both constructors: {@code status-path} (default
 * {@value #DEFAULT_STATUS_PATH}, or {@code /queue/<name>/status} for a named room) and {@code
 * bypass-paths} (comma-separated path prefixes matched by whole segments: {@code /ws} bypasses
 * {@code /ws} and {@code /ws/x}, not {@code /wsx}). Room-level, read by the no-arg constructor
 * only: {@code capacity} (required, unless another filter already published a room in this context,
 * which this one then shares), {@code token-ttl}, {@code reaper-interval}, {@code
 * first-poll-grace}, {@code offer-timeout}, {@code pass-duration} (ISO-8601 such as {@code PT5M},
 * or a bare number of seconds), {@code max-queue-depth}, {@code queue-full-status}, {@code
 * secure-cookie}, {@code cookie-path}, {@code cookie-domain}, {@code skip-url}, {@code name},
 * {@code admission-mode} ({@code requests} or {@code sessions}), {@code session-duration}, {@code
 * session-max-duration}, {@code mode} ({@code open}, {@code queue-all}, {@code paused}, …), {@code
 * announcement}, {@code admission-rate} (per second), {@code join-limit} (new tickets per client
 * key per minute) and {@code join-challenge} (proof-of-work bits; its challenges are served at
 * {@code <status-path>/challenge}), and {@code state-file}: an absolute path where the line is
 * saved on {@link #destroy} (owner-only, written to a temporary file and renamed in one step) and
 * restored on the next {@link #init} before serving, so a redeploy keeps everyone's place; an
 * unreadable file is logged, moved aside to {@code <file>.rejected}, and the room starts with an
 * empty line. A bad value stops the application from starting, with a message naming it.
 *
 * <p><b>Running a sale.</b> The room's {@link RoomMode} decides what happens to a gated request
 * without a live session: {@code PASSTHROUGH} lets it through without a slot (and lets a visitor in
 * line in, retiring its ticket); {@code CLOSED} answers 503 with a closed page (or the status JSON)
 * and issues no ticket; {@code QUEUE_ALL} and {@code PAUSED} queue it. Shopping sessions already
 * running carry on in every mode. Each gated request is timed on the room's clock until its
 * response completes and reported, with whether it failed (status 500 or more, or an exception), to
 * the room's {@link CapacityController}, if it has one.
 *
 * <p><b>Bypassing.</b> Keep long-lived connections (WebSockets, server-sent events), static assets
 * and payment webhooks out of the room with {@code bypass-paths} or {@link #bypass(Predicate)}: a
 * gated request holds its slot for as long as it runs.
 */
public final class WaitingRoomFilter implements Filter {
  /** The default path of the status endpoint. */
  public static final String DEFAULT_STATUS_PATH = "/queue/status";

  private WaitingRoom room;
  private boolean ownsRoom;
  private StateFile stateFile; // null: the line is not kept across a redeploy
  private String statusPath; // null: the room's default

  /** The request attribute that carries the session id of a request admitted under a session. */
  public static final String SESSION_ATTRIBUTE = "dev.room.sessionId";

  /** The response header a gated application sets to end its visitor's session. */
  public static final String COMMAND_HEADER = "Room-Command";

  private final List<String> bypassPaths = new ArrayList<>();
  private volatile Predicate<HttpServletRequest> bypass = r -> false;

  /** For {@code web.xml}: the room is built from init-params in {@link #init}. */
  public WaitingRoomFilter() {}

  /** Gates requests with {@code room}, as configured. */
  public WaitingRoomFilter(WaitingRoom room) {
    this.room = Objects.requireNonNull(room, "room");
  }

  /**
   * Lets requests matching {@code predicate} pass ungated, in addition to any earlier ones. A
   * predicate that throws bypasses nothing: the request is gated (see {@link
   * WaitingRoom#callbackFailures()}).
   */
  public WaitingRoomFilter bypass(Predicate<HttpServletRequest> predicate) {
    Objects.requireNonNull(predicate, "predicate");
    Predicate<HttpServletRequest> earlier = bypass;
    bypass = earlier.or(predicate);
    return this;
  }

  /** Lets requests under these path prefixes pass ungated (whole segments). */
  public WaitingRoomFilter bypassPaths(String... prefixes) {
    for (String p : prefixes) {
      bypassPaths.add(FilterConfigReader.path("bypass-paths", p));
    }
    return this;
  }

  /** Serves the status endpoint at {@code path} instead of {@value #DEFAULT_STATUS_PATH}. */
  public WaitingRoomFilter statusPath(String path) {
    statusPath = FilterConfigReader.path("status-path", path);
    return this;
  }

  /** The room this filter gates with; null before {@link #init} for a {@code web.xml} filter. */
  public WaitingRoom room() {
    return room;
  }

  @Override
  public void init(FilterConfig config) throws ServletException {
    try {
      configure(config);
    } catch (IllegalArgumentException e) {
      throw new ServletException(
          "WaitingRoomFilter " + config.getFilterName() + ": " + e.getMessage(), e);
    }
  }

  private void configure(FilterConfig config) throws ServletException {
    FilterConfigReader params = new FilterConfigReader(config);
    String sp = params.string("status-path");
    if (sp != null) {
      statusPath(sp);
    }
    String bp = params.string("bypass-paths");
    if (bp != null) {
      for (String p : bp.split(",")) {
        if (!p.isBlank()) {
          bypassPaths(p.strip());
        }
      }
    }
    ServletContext ctx = config.getServletContext();
    Object published = ctx.getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE);
    if (room == null) {
      if (params.string("capacity") == null && published instanceof WaitingRoom shared) {
        room = shared;
      } else {
        room = params.buildRoom();
        ownsRoom = true;
      }
    }
    String sf = params.string("state-file");
    if (sf != null) {
      if (!ownsRoom) {
        throw new IllegalArgumentException(
            "state-file needs a room built from this filter's own init-params (capacity …); for a"
                + " room of your own, call exportTo and importFrom yourself");
      }
      // Before the first request: an import is refused once the room has served.
      try {
        stateFile = StateFile.at(sf, "WaitingRoomFilter " + config.getFilterName());
      } catch (IllegalArgumentException e) {
        room.close(); // start-up fails: leave no reaper behind
        throw e;
      }
      stateFile.restore(room);
      room.setLinePersisted(true); // the line outlives a redeploy, so the page may say so
    }
    if (published == null) {
      ctx.setAttribute(WaitingRoom.CONTEXT_ATTRIBUTE, room);
    }
  }

  @Override
  public void destroy() {
    if (ownsRoom) {
      // The container calls destroy once no request is in this filter: the export is exact.
      if (stateFile != null) {
        stateFile.save(room);
      }
      room.close();
    }
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest req)
        || !(response instanceof HttpServletResponse res)
        || request.getDispatcherType() != DispatcherType.REQUEST) {
      chain.doFilter(request, response);
      return;
    }
    WaitingRoom r = room;
    String path = path(req);
    String statusBase = statusPath != null ? statusPath : r.defaultStatusPath();
    boolean status = path.equals(statusBase);
    boolean leave =
        path.length() == statusBase.length() + 6
            && path.startsWith(statusBase)
            && path.endsWith("/leave");
    boolean challenge = !status && !leave && isChallenge(path, statusBase); // join guard (r3-guard)
    if (!status && !leave && !challenge && (bypassed(path) || bypassedBy(req))) {
      chain.doFilter(req, res);
      return;
    }
    try {
      if (status) {
        StatusEndpoint.handle(r, req, res);
      } else if (leave) {
        StatusEndpoint.leave(r, req, res);
      } else if (challenge) {
        GuardPages.challenge(r, req, res);
      } else {
        gate(r, req, res, chain, statusBase);
      }
    } catch (LineUnavailableException e) {
      Responses.lineUnavailable(r, req, res, status, statusBase, e);
    }
  }

  /** Asks the {@link Gatekeeper}, then takes the one exit its answer names. */
  private static void gate(
      WaitingRoom r,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      String statusBase)
      throws IOException, ServletException {
    Admission a = Gatekeeper.admit(r, req, res, ServletVisitor.INSTANCE);
    if (a == Verdict.ENTERED) {
      Passage.holdingSlot(r, req, res, chain);
    } else if (a instanceof Sessions.Admitted s) {
      Passage.inSession(r, s.session(), s.grantExpiresAt(), req, res, chain);
    } else if (a == Verdict.PASS) {
      Passage.free(req, res, chain);
    } else if (a instanceof Queued q && q.reload()) {
      Responses.tooFast(r, req, res, q);
    } else if (a instanceof Queued q) {
      Responses.waiting(r, req, res, q, statusBase);
    } else if (a == Verdict.CLOSED) {
      Responses.closed(r, req, res);
    } else if (a instanceof JoinGuard.Refused no) {
      GuardPages.refused(r, req, res, no, statusBase);
    } else {
      Responses.queueFull(r, req, res);
    }
  }

  /** {@code <status-path>/challenge}: the join guard's puzzles (join guard, r3-guard). */
  private static boolean isChallenge(String path, String statusBase) {
    return path.length() == statusBase.length() + 10
        && path.startsWith(statusBase)
        && path.endsWith("/challenge");
  }

  /** The application's bypass predicates; one that throws bypasses nothing. */
  private boolean bypassedBy(HttpServletRequest req) {
    try {
      return bypass.test(req);
    } catch (Throwable e) { // user code: anything it throws is caught
      WaitingRoom r = room;
      r.userCode().failed(r.displayName(), "bypass predicate", e);
      return false;
    }
  }

  private boolean bypassed(String path) {
    for (String prefix : bypassPaths) {
      if (path.startsWith(prefix)
          && (path.length() == prefix.length()
              || path.charAt(prefix.length()) == '/'
              || prefix.endsWith("/"))) {
        return true;
      }
    }
    return false;
  }

  /** The decoded, normalised path within the context: what the container dispatches on. */
  private static String path(HttpServletRequest req) {
    String servletPath = req.getServletPath();
    String info = req.getPathInfo();
    String p = info == null ? servletPath : servletPath + info;
    return p.isEmpty() ? "/" : p;
  }
}
