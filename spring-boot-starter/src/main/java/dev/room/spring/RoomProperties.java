package dev.room.spring;

import dev.room.AdmissionMode;
import dev.room.RoomMode;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.core.Ordered;
import org.springframework.core.io.Resource;

/**
 * The {@code room.*} properties: the {@link dev.room.WaitingRoom.Builder} in kebab case, plus the
 * filter's and the starter's own settings. A property left unset keeps the library's default.
 * Durations take Spring's forms ({@code 2m}, {@code 30s}, {@code PT2M}); a bare number is seconds,
 * as in the filter's init-params.
 */
@ConfigurationProperties(prefix = "room")
public class RoomProperties {
  /** Whether to auto-configure the waiting room and its filter. */
  private boolean enabled = true;

  /**
   * Slots: requests (or, with admission-mode=sessions, shopping sessions) served at once. Required.
   * Keep it below the server's worker threads (server.tomcat.threads.max, default 200), with
   * headroom for the status endpoint and bypassed paths; start-up fails otherwise.
   */
  private Integer capacity;

  /** How long a ticket lives without a poll (sliding; default 5m; 30s to 24h). */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration tokenTtl;

  /** How often expired tickets are reclaimed (default 5m; 5s to 24h). */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration reaperInterval;

  /** How long a new ticket may go without its client coming back (default off; 1s to 24h). */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration firstPollGrace;

  /**
   * How long a client told it is ready has to come back before its slot passes on (default 60s; 5s
   * to 1h).
   */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration offerTimeout;

  /** New arrivals beyond this many waiting clients are turned away (default 0 = unlimited). */
  private Long maxQueueDepth;

  /** The status of the line-full page: 503 (the default) or 429. */
  private Integer queueFullStatus;

  /** New tickets per client key per minute; beyond it 429 with Retry-After (default 0 = off). */
  private Integer joinLimit;

  /** Proof-of-work difficulty in bits, maxnumber = 2^bits, solved before a ticket (0 = off). */
  private Integer joinChallenge;

  /** Whether the room's cookies carry the Secure attribute (default false). */
  private Boolean secureCookie;

  /** The room's cookie path (default the servlet context path). */
  private String cookiePath;

  /** The room's cookie domain (default none: the host only). */
  private String cookieDomain;

  /** Where the waiting page's skip-the-line button leads (default none). */
  private String skipUrl;

  /** How long a VIP pass lasts (default off; 1m to 24h). */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration passDuration;

  /** A waiting page of your own (e.g. classpath:/waiting.html; default the built-in page). */
  private Resource html;

  /** The room's name, 1-32 of [a-z0-9-]; suffixes its cookies and moves its status path. */
  private String name;

  /** What holds a slot: a request (requests, the default) or a shopping session (sessions). */
  private AdmissionMode admissionMode;

  /** How long a shopping session lasts without activity (default 10m; 30s to 7d). */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration sessionDuration;

  /** The absolute limit of a shopping session from its claim (default 60m; 30s to 7d). */
  @DurationUnit(ChronoUnit.SECONDS)
  private Duration sessionMaxDuration;

  /** The mode the room starts in (default open); the actuator endpoint changes it live. */
  private RoomMode mode;

  /** A sale-wide announcement shown on the waiting page (at most 1000 characters). */
  private String announcement;

  /** Admissions a second on top of capacity (default 0 = unlimited). */
  private Double admissionRate;

  /**
   * The ISO 4217 currency of skip-the-line prices (e.g. EUR), shown on the page; none by default.
   */
  private Currency currency;

  /**
   * Whether the line outlives a restart, so the page may promise a kept place (default: true for a
   * Redis line, false in memory).
   */
  private Boolean linePersisted;

  /** The key that signs session grants; instances that share a line must share it. */
  private final SigningKey signingKey = new SigningKey();

  /** Where the filter serves the status JSON (default /queue/status, or /queue/NAME/status). */
  private String statusPath;

  /** Path prefixes that pass ungated, matched by whole segments (static assets, webhooks). */
  private List<String> bypassPaths = new ArrayList<>();

  /**
   * Whether the actuator's base path (management.endpoints.web.base-path) passes ungated, so health
   * checks and operators never queue.
   */
  private boolean bypassActuator = true;

  /** The URL patterns the filter is mapped to. */
  private List<String> urlPatterns = new ArrayList<>(List.of("/*"));

  /** The filter's order: early, so the room runs before security and the application's filters. */
  private int filterOrder = Ordered.HIGHEST_PRECEDENCE + 10;

  /**
   * Whether start-up fails when capacity leaves no headroom below the server's worker threads. Turn
   * it off only when gated requests are asynchronous and give their thread back.
   */
  private boolean workerThreadCheck = true;

  /** A line shared through Redis (needs io.lettuce:lettuce-core on the class path). */
  private final Redis redis = new Redis();

  /** The key that signs session grants. */
  public static class SigningKey {
    /** The key's id, carried in each grant. */
    private String id;

    /** The secret, base64-encoded, at least 32 bytes once decoded. */
    private String secret;

    public String getId() {
      return id;
    }

    public void setId(String id) {
      this.id = id;
    }

    public String getSecret() {
      return secret;
    }

    public void setSecret(String secret) {
      this.secret = secret;
    }
  }

  /** A line shared through Redis by every instance with the same room id. */
  public static class Redis {
    /** The Redis URI (redis://host:6379, rediss://, redis-sentinel://); unset = in memory. */
    private String uri;

    /** The line's id in Redis; instances with the same id share one line (default room.name). */
    private String roomId;

    /** How long a silent instance's slots stay held before they return (default 15s). */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration leaseTtl;

    /** How long to wait for Redis to answer one command (default 2s). */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration commandTimeout;

    /** Whether to let every request in while Redis is unreachable (default false). */
    private Boolean failOpen;

    /** The name this instance's leases carry in Redis (default host/pid). */
    private String instanceName;

    public String getUri() {
      return uri;
    }

    public void setUri(String uri) {
      this.uri = uri;
    }

    public String getRoomId() {
      return roomId;
    }

    public void setRoomId(String roomId) {
      this.roomId = roomId;
    }

    public Duration getLeaseTtl() {
      return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
    }

    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    public Boolean getFailOpen() {
      return failOpen;
    }

    public void setFailOpen(Boolean failOpen) {
      this.failOpen = failOpen;
    }

    public String getInstanceName() {
      return instanceName;
    }

    public void setInstanceName(String instanceName) {
      this.instanceName = instanceName;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getCapacity() {
    return capacity;
  }

  public void setCapacity(Integer capacity) {
    this.capacity = capacity;
  }

  public Duration getTokenTtl() {
    return tokenTtl;
  }

  public void setTokenTtl(Duration tokenTtl) {
    this.tokenTtl = tokenTtl;
  }

  public Duration getReaperInterval() {
    return reaperInterval;
  }

  public void setReaperInterval(Duration reaperInterval) {
    this.reaperInterval = reaperInterval;
  }

  public Duration getFirstPollGrace() {
    return firstPollGrace;
  }

  public void setFirstPollGrace(Duration firstPollGrace) {
    this.firstPollGrace = firstPollGrace;
  }

  public Duration getOfferTimeout() {
    return offerTimeout;
  }

  public void setOfferTimeout(Duration offerTimeout) {
    this.offerTimeout = offerTimeout;
  }

  public Long getMaxQueueDepth() {
    return maxQueueDepth;
  }

  public void setMaxQueueDepth(Long maxQueueDepth) {
    this.maxQueueDepth = maxQueueDepth;
  }

  public Integer getJoinLimit() {
    return joinLimit;
  }

  public void setJoinLimit(Integer joinLimit) {
    this.joinLimit = joinLimit;
  }

  public Integer getJoinChallenge() {
    return joinChallenge;
  }

  public void setJoinChallenge(Integer joinChallenge) {
    this.joinChallenge = joinChallenge;
  }

  public Integer getQueueFullStatus() {
    return queueFullStatus;
  }

  public void setQueueFullStatus(Integer queueFullStatus) {
    this.queueFullStatus = queueFullStatus;
  }

  public Boolean getSecureCookie() {
    return secureCookie;
  }

  public void setSecureCookie(Boolean secureCookie) {
    this.secureCookie = secureCookie;
  }

  public String getCookiePath() {
    return cookiePath;
  }

  public void setCookiePath(String cookiePath) {
    this.cookiePath = cookiePath;
  }

  public String getCookieDomain() {
    return cookieDomain;
  }

  public void setCookieDomain(String cookieDomain) {
    this.cookieDomain = cookieDomain;
  }

  public String getSkipUrl() {
    return skipUrl;
  }

  public void setSkipUrl(String skipUrl) {
    this.skipUrl = skipUrl;
  }

  public Duration getPassDuration() {
    return passDuration;
  }

  public void setPassDuration(Duration passDuration) {
    this.passDuration = passDuration;
  }

  public Resource getHtml() {
    return html;
  }

  public void setHtml(Resource html) {
    this.html = html;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public AdmissionMode getAdmissionMode() {
    return admissionMode;
  }

  public void setAdmissionMode(AdmissionMode admissionMode) {
    this.admissionMode = admissionMode;
  }

  public Duration getSessionDuration() {
    return sessionDuration;
  }

  public void setSessionDuration(Duration sessionDuration) {
    this.sessionDuration = sessionDuration;
  }

  public Duration getSessionMaxDuration() {
    return sessionMaxDuration;
  }

  public void setSessionMaxDuration(Duration sessionMaxDuration) {
    this.sessionMaxDuration = sessionMaxDuration;
  }

  public RoomMode getMode() {
    return mode;
  }

  public void setMode(RoomMode mode) {
    this.mode = mode;
  }

  public String getAnnouncement() {
    return announcement;
  }

  public void setAnnouncement(String announcement) {
    this.announcement = announcement;
  }

  public Currency getCurrency() {
    return currency;
  }

  public void setCurrency(Currency currency) {
    this.currency = currency;
  }

  public Boolean getLinePersisted() {
    return linePersisted;
  }

  public void setLinePersisted(Boolean linePersisted) {
    this.linePersisted = linePersisted;
  }

  public Double getAdmissionRate() {
    return admissionRate;
  }

  public void setAdmissionRate(Double admissionRate) {
    this.admissionRate = admissionRate;
  }

  public SigningKey getSigningKey() {
    return signingKey;
  }

  public String getStatusPath() {
    return statusPath;
  }

  public void setStatusPath(String statusPath) {
    this.statusPath = statusPath;
  }

  public List<String> getBypassPaths() {
    return bypassPaths;
  }

  public void setBypassPaths(List<String> bypassPaths) {
    this.bypassPaths = bypassPaths;
  }

  public boolean isBypassActuator() {
    return bypassActuator;
  }

  public void setBypassActuator(boolean bypassActuator) {
    this.bypassActuator = bypassActuator;
  }

  public List<String> getUrlPatterns() {
    return urlPatterns;
  }

  public void setUrlPatterns(List<String> urlPatterns) {
    this.urlPatterns = urlPatterns;
  }

  public int getFilterOrder() {
    return filterOrder;
  }

  public void setFilterOrder(int filterOrder) {
    this.filterOrder = filterOrder;
  }

  public boolean isWorkerThreadCheck() {
    return workerThreadCheck;
  }

  public void setWorkerThreadCheck(boolean workerThreadCheck) {
    this.workerThreadCheck = workerThreadCheck;
  }

  public Redis getRedis() {
    return redis;
  }
}
