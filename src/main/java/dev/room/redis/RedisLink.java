package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * One room's connection to Redis: a single multiplexed Lettuce connection, scripts run by EVALSHA
 * (loaded again when Redis answers NOSCRIPT, as after a restart), and Redis failures turned into
 * {@link LineUnavailableException}.
 *
 * <p>Implementation notes. Lettuce's own reconnect is off, so a command is sent at most once: a
 * release or admission cut off by a disconnect is never replayed later onto the new connection,
 * where it would count twice. Commands on one connection run in the order sent, so a heartbeat sent
 * after a timed-out command sees that command's effect (if it had any). The owner reconnects by
 * calling {@link #connect()} from its heartbeat thread.
 *
 * <p>Lettuce's {@code isOpen()} turns false only when its event loop has processed the channel's
 * end, some time after the channel stopped accepting commands ("Currently not connected"). So a
 * connection that looks open proves nothing: {@link #connect()} reports {@code UP} only after a
 * PING came back, and a command that finds the connection gone drops it, so the next heartbeat
 * connects anew instead of reporting a dead connection as up.
 */
final class RedisLink implements AutoCloseable {
  /** What {@link #connect()} found or did. */
  enum State {
    UP,
    CONNECTED,
    RECONNECTED,
    DOWN
  }

  private final RedisClient client;
  private final LuaScripts scripts = new LuaScripts();
  private final Object connecting = new Object();
  private final AtomicReference<StatefulRedisConnection<String, String>> connection =
      new AtomicReference<>();
  private volatile boolean everConnected;
  private volatile boolean closed;

  RedisLink(String redisUri, Duration commandTimeout) {
    RedisURI uri;
    try {
      uri = RedisURI.create(redisUri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("redisUri is not a Redis URI: " + e.getMessage(), e);
    }
    uri.setTimeout(commandTimeout);
    client = RedisClient.create(uri);
    client.setOptions(
        ClientOptions.builder()
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .socketOptions(
                SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
            .build());
  }

  boolean connected() {
    StatefulRedisConnection<String, String> c = connection.get();
    return c != null && c.isOpen();
  }

  /**
   * Connects unless a connection answers a PING; never throws. {@code UP} and the connected states
   * mean Redis accepted a command on the connection just now.
   */
  State connect() {
    synchronized (connecting) {
      if (closed) {
        return State.DOWN;
      }
      StatefulRedisConnection<String, String> c = connection.get();
      if (c != null && c.isOpen() && answers(c)) {
        return State.UP;
      }
      if (c != null) {
        drop(c);
      }
      try {
        c = client.connect(StringCodec.UTF8); // returns once the handshake's reply came back
      } catch (RedisException e) {
        return State.DOWN;
      }
      connection.set(c);
      boolean again = everConnected;
      everConnected = true;
      return again ? State.RECONNECTED : State.CONNECTED;
    }
  }

  /** Whether Redis answers on {@code c}: any reply, even an error (LOADING, BUSY), proves it. */
  private static boolean answers(StatefulRedisConnection<String, String> c) {
    try {
      c.sync().ping();
      return true;
    } catch (RedisCommandExecutionException e) {
      return true;
    } catch (RedisException e) {
      return false; // gone, or no reply within the command timeout: connect anew
    }
  }

  /** Forgets {@code c} unless another connection replaced it already. */
  private void drop(StatefulRedisConnection<String, String> c) {
    if (connection.compareAndSet(c, null)) {
      c.closeAsync();
    }
  }

  /** Runs script {@code op}; its reply is a list of longs, strings and nested lists. */
  List<Object> eval(Op op, String[] keys, String... args) {
    return call(
        c -> {
          try {
            return c.evalsha(scripts.sha(op), ScriptOutputType.MULTI, keys, args);
          } catch (RedisNoScriptException e) {
            c.scriptLoad(scripts.source(op));
            return c.evalsha(scripts.sha(op), ScriptOutputType.MULTI, keys, args);
          }
        });
  }

  /** Runs plain commands. */
  <T> T call(Function<RedisCommands<String, String>, T> commands) {
    StatefulRedisConnection<String, String> c = connection.get();
    if (c == null || !c.isOpen()) {
      throw new LineUnavailableException("Redis is unreachable", null);
    }
    try {
      return commands.apply(c.sync());
    } catch (RedisCommandExecutionException e) {
      if (transientError(e.getMessage())) {
        throw new LineUnavailableException("Redis cannot serve now: " + e.getMessage(), e);
      }
      throw new IllegalStateException("Redis refused a line command: " + e.getMessage(), e);
    } catch (RedisCommandTimeoutException | RedisCommandInterruptedException e) {
      // the connection may well be alive: the heartbeat's PING decides
      throw new LineUnavailableException("Redis is unreachable: " + e.getMessage(), e);
    } catch (RedisException e) {
      drop(c); // the channel is gone although isOpen() may not say so yet
      throw new LineUnavailableException("Redis is unreachable: " + e.getMessage(), e);
    }
  }

  StatefulRedisConnection<String, String> connectionForTest() {
    return connection.get();
  }

  /** Drops the connection at once, as a crash would. */
  void sever() {
    StatefulRedisConnection<String, String> c = connection.getAndSet(null);
    closed = true;
    if (c != null) {
      c.closeAsync();
    }
  }

  /** Closes the connection and the client's threads. */
  @Override
  public void close() {
    closed = true;
    connection.set(null);
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /** Errors Redis gives while it is starting, failing over or busy: worth a retry later. */
  private static boolean transientError(String message) {
    if (message == null) {
      return false;
    }
    return message.startsWith("LOADING")
        || message.startsWith("BUSY")
        || message.startsWith("MASTERDOWN")
        || message.startsWith("TRYAGAIN")
        || message.startsWith("CLUSTERDOWN")
        || message.startsWith("READONLY");
  }
}
