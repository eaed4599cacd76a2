package dev.room;

import dev.room.engine.SessionRegistry;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
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
 * announcement} and {@code admission-rate} (per second), and {@code state-file}: an absolute path
 * where the line is saved on {@link #destroy} (owner-only, written to a temporary file and renamed
 * in one step) and restored on the next {@link #init} before serving, so a redeploy keeps
 * everyone's place; an unreadable file is logged, moved aside to {@code <file>.rejected}, and the
 * room starts with an empty line. A bad value stops the application from starting, with a message
 * naming it.
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
    String path = path(req);
    String statusBase = statusPath != null ? statusPath : room.defaultStatusPath();
    boolean status = path.equals(statusBase);
    boolean leave =
        path.length() == statusBase.length() + 6
            && path.startsWith(statusBase)
            && path.endsWith("/leave");
    if (!status && !leave && (bypassed(path) || bypassedBy(req))) {
      chain.doFilter(req, res);
      return;
    }
    try {
      if (status) {
        StatusEndpoint.handle(room, req, res);
      } else if (leave) {
        StatusEndpoint.leave(room, req, res);
      } else {
        admit(req, res, chain);
      }
    } catch (LineUnavailableException e) {
      lineUnavailable(room, req, res, status, e);
    }
  }

  private void admit(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    WaitingRoom r = room;
    Sessions sessions = r.sessions();
    if (sessions.enabled()) {
      String grant = Cookies.read(req, r, Cookies.SESSION);
      if (grant != null && !grant.isEmpty()) {
        long now = r.clock().millis();
        Sessions.Admitted a = sessions.check(grant, now);
        if (a != null) {
          serveSession(r, a.session(), a.grantExpiresAt(), req, res, chain);
          return;
        }
        Cookies.clear(req, res, r, Cookies.SESSION); // refused: counts as no grant from now on
      }
    }
    RoomMode mode = r.mode();
    String ticket = Cookies.read(req, r, Cookies.TICKET);
    boolean stale = ticket != null && !ticket.isEmpty();
    if (mode == RoomMode.PASSTHROUGH) {
      if (stale && Tokens.valid(ticket) && r.liveQueueDepth() != 0) {
        r.passedThrough(Tokens.hi(ticket), Tokens.lo(ticket)); // let in: its place is not needed
      }
      CommandResponse stripped = new CommandResponse(res);
      chain.doFilter(new CommandRequest(req, stripped), stripped);
      return;
    }
    if (stale && Tokens.valid(ticket)) {
      long now = r.clock().millis();
      long o;
      if (sessions.enabled()) {
        Sessions.Claim c = sessions.claim(ticket, now); // one step with the session's start
        if (c.session() != null) {
          serveSession(r, c.session(), Sessions.NO_GRANT, req, res, chain);
          return;
        }
        o = c.outcome();
      } else {
        o =
            r.liveQueueDepth() != 0
                ? r.claim(Tokens.hi(ticket), Tokens.lo(ticket), now)
                : Outcome.of(Outcome.UNKNOWN, 0, 0);
      }
      int kind = Outcome.kind(o);
      if (kind == Outcome.ADMITTED) {
        admitted(r, ticket, req, res, chain);
        return;
      }
      if (kind == Outcome.WAITING) {
        if (Outcome.has(o, Outcome.RATE_LIMITED)) {
          tooFast(r, req, res, o);
        } else {
          // Closed too: the visitor keeps its place, and its page notices a reopening in place.
          waiting(r, req, res, ticket, Outcome.position(o), o);
        }
        return;
      }
    }
    if (mode == RoomMode.CLOSED) {
      closed(r, req, res);
      return;
    }
    if (r.tryEnter()) {
      admitted(r, "", req, res, chain);
      return;
    }
    String clientKey = clientKey(r, req);
    String pass = Cookies.read(req, r, Cookies.PASS);
    boolean hasPass = pass != null && r.hasValidPass(pass);
    long o;
    String token;
    do {
      long[] t = Tokens.generate();
      token = Tokens.format(t[0], t[1]);
      o = r.arrive(t[0], t[1], token, clientKey, hasPass, stale);
    } while (Outcome.kind(o) == Outcome.UNKNOWN);
    switch (Outcome.kind(o)) {
      case Outcome.ADMITTED -> admitted(r, token, req, res, chain);
      case Outcome.REJECTED -> queueFull(r, req, res);
      default -> waiting(r, req, res, token, Outcome.position(o), o);
    }
  }

  /** The client key of a newcomer; a key function that throws is taken as no key. */
  private static String clientKey(WaitingRoom r, HttpServletRequest req) {
    Function<HttpServletRequest, String> keyFn = r.web().clientKeyFunction;
    if (keyFn == null) {
      return "";
    }
    try {
      return Checks.clientKey(keyFn.apply(req));
    } catch (Throwable e) { // user code: anything it throws is caught
      r.userCode().failed(r.displayName(), "client-key function", e);
      return "";
    }
  }

  /** A slot was taken for this request: it runs holding it, or a session starts on it. */
  private static void admitted(
      WaitingRoom r,
      String ticket,
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain)
      throws IOException, ServletException {
    if (!r.sessions().enabled()) {
      run(r, req, res, chain);
      return;
    }
    SessionRegistry.Session s = r.sessions().start(ticket, r.clock().millis());
    serveSession(r, s, Sessions.NO_GRANT, req, res, chain);
  }

  /**
   * Runs a request of a live session; the session holds the slot, so the request takes none. The
   * grant is (re-)sent whenever the session would outlive the client's grant, so the two expire
   * together; a {@value #COMMAND_HEADER} response header is stripped and, once the response
   * completes, acted on, whatever the health sample did.
   */
  private static void serveSession(
      WaitingRoom r,
      SessionRegistry.Session s,
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
    req.setAttribute(SESSION_ATTRIBUTE, s.id());
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

  /**
   * Runs the application holding a slot; gives it back exactly once when the response is done,
   * after reporting the request's latency and outcome to the room's capacity controller. A {@value
   * #COMMAND_HEADER} header is stripped: there is no session to end.
   */
  private static void run(
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

  private void waiting(
      WaitingRoom r,
      HttpServletRequest req,
      HttpServletResponse res,
      String token,
      long position,
      long outcome)
      throws IOException {
    Cookies.sendTicket(req, res, r, token);
    res.setHeader("Cache-Control", "no-store");
    boolean closed = r.mode() == RoomMode.CLOSED;
    if (prefersJson(req)) {
      if (!closed) {
        res.setHeader("Retry-After", "3");
      }
      StatusEndpoint.write(res, 503, StatusEndpoint.body(r, req, outcome));
      return;
    }
    String statusUrl =
        req.getServletContext().getContextPath()
            + (statusPath != null ? statusPath : r.defaultStatusPath());
    byte[] page = r.web().page.render(r, req, position, outcome, statusUrl);
    StatusEndpoint.pagePolicy(res);
    res.setStatus(closed ? 503 : 200);
    res.setContentType("text/html;charset=utf-8");
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  /** A closed sale: nobody new is queued, and a new arrival is told so, with no ticket. */
  private static void closed(WaitingRoom r, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    res.setHeader("Cache-Control", "no-store");
    if (prefersJson(req)) {
      StatusEndpoint.write(
          res, 503, StatusEndpoint.body(r, req, Outcome.of(Outcome.WAITING, 0, 0)));
      return;
    }
    byte[] page = Pages.closed(r.announcement());
    StatusEndpoint.pagePolicy(res);
    res.setStatus(503);
    res.setContentType("text/html;charset=utf-8");
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  /**
   * The line's storage (a shared line's Redis) cannot be reached: nobody is let in, and the client
   * keeps its ticket cookie, so its place is kept. The page polls on and shows it is reconnecting.
   */
  private void lineUnavailable(
      WaitingRoom r,
      HttpServletRequest req,
      HttpServletResponse res,
      boolean status,
      LineUnavailableException e)
      throws IOException {
    if (res.isCommitted()) {
      throw e;
    }
    res.resetBuffer();
    res.setHeader("Retry-After", "5");
    res.setHeader("Cache-Control", "no-store");
    if (status || prefersJson(req)) {
      StatusEndpoint.write(res, 503, "{\"ready\":false,\"reconnecting\":true}");
      return;
    }
    String statusUrl =
        req.getServletContext().getContextPath()
            + (statusPath != null ? statusPath : r.defaultStatusPath());
    byte[] page = Pages.unavailable(r.linePersisted(), statusUrl);
    StatusEndpoint.pagePolicy(res);
    res.setStatus(503);
    res.setContentType("text/html;charset=utf-8");
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  private static void queueFull(WaitingRoom r, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    res.setHeader("Retry-After", "30");
    res.setHeader("Cache-Control", "no-store");
    int status = r.queueFullStatus();
    if (prefersJson(req)) {
      StatusEndpoint.write(res, status, "{\"ready\":false,\"queue_full\":true}");
      return;
    }
    StatusEndpoint.pagePolicy(res);
    res.setStatus(status);
    res.setContentType("text/html;charset=utf-8");
    byte[] page = Pages.lineFull();
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  /**
   * A waiting client reloaded within the poll interval: a reload is a poll in disguise, so it is
   * answered like a too-fast poll (429, {@code Retry-After}), with a few hundred bytes that come
   * back to the page by themselves rather than the page and its cookies. Its place is untouched.
   */
  private static void tooFast(
      WaitingRoom r, HttpServletRequest req, HttpServletResponse res, long outcome)
      throws IOException {
    res.setHeader("Retry-After", "1");
    res.setHeader("Cache-Control", "no-store");
    if (prefersJson(req)) {
      StatusEndpoint.write(res, 429, StatusEndpoint.body(r, req, outcome));
      return;
    }
    StatusEndpoint.pagePolicy(res);
    res.setStatus(429);
    res.setContentType("text/html;charset=utf-8");
    byte[] page = Pages.tooFast();
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  /** Whether the Accept header ranks application/json above text/html. */
  static boolean prefersJson(HttpServletRequest req) {
    String accept = req.getHeader("Accept");
    if (accept == null || !accept.contains("json")) {
      return false;
    }
    double json = -1;
    double html = -1;
    for (String part : accept.split(",")) {
      String[] f = part.split(";");
      String type = f[0].strip().toLowerCase(java.util.Locale.ROOT);
      double q = 1;
      for (int i = 1; i < f.length; i++) {
        String p = f[i].strip();
        if (p.startsWith("q=")) {
          try {
            q = Double.parseDouble(p.substring(2));
          } catch (NumberFormatException e) {
            q = 0;
          }
        }
      }
      if (type.equals("application/json") || type.endsWith("+json")) {
        json = Math.max(json, q);
      } else if (type.equals("text/html")) {
        html = Math.max(html, q);
      }
    }
    return json > 0 && json > html;
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

  /** Keeps the {@value #COMMAND_HEADER} header from the client and remembers its value. */
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
