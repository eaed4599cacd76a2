package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.redis.RedisEndpoint.Connection;
import dev.room.spi.LineUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.RedisCommand;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One room's connection to Redis: a single multiplexed Lettuce connection (to one server, to the
 * primary Sentinel names, or to a Redis Cluster: see {@link RedisEndpoint}), scripts run by EVALSHA
 * (sent whole by EVAL when the node that answered has not got it, as after a restart, a failover or
 * a resharding), and Redis failures turned into {@link LineUnavailableException}.
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
 * connects anew instead of reporting a dead connection as up. So does a reply that says the node is
 * a replica (READONLY, MASTERDOWN): after a failover the old primary may well keep the connection
 * open as a replica, and only a new connection asks Sentinel where the primary is now.
 */
final class RedisLink implements AutoCloseable {
  /** What {@link #connect()} found or did. */
  enum State {
    UP,
    CONNECTED,
    RECONNECTED,
    DOWN
  }

  private final RedisEndpoint endpoint;
  private final LuaScripts scripts = new LuaScripts();
  private final Object connecting = new Object();
  private final AtomicReference<Connection> connection = new AtomicReference<>();
  private volatile boolean everConnected;
  private volatile boolean closed;

  RedisLink(String redisUri, Duration commandTimeout) {
    this(redisUri, false, commandTimeout);
  }

  /**
   * @param cluster whether {@code redisUri} names a Redis Cluster even with one host (a URI with
   *     several hosts always does)
   */
  RedisLink(String redisUri, boolean cluster, Duration commandTimeout) {
    endpoint = RedisEndpoint.of(redisUri, cluster, commandTimeout);
  }

  /** The scripts this link runs, for callers that encode a script's command themselves. */
  LuaScripts scripts() {
    return scripts;
  }

  RedisEndpoint.Topology topology() {
    return endpoint.topology();
  }

  boolean connected() {
    Connection c = connection.get();
    return c != null && c.stateful().isOpen();
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
      Connection c = connection.get();
      if (c != null && c.stateful().isOpen() && answers(c.sync()) && endpoint.stillPrimary(c)) {
        return State.UP;
      }
      if (c != null) {
        drop(c);
      }
      try {
        c = endpoint.connect(); // returns once the handshake's reply came back
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
  private static boolean answers(RedisClusterCommands<String, String> c) {
    try {
      c.ping();
      return true;
    } catch (RedisCommandExecutionException e) {
      return true;
    } catch (RedisException e) {
      return false; // gone, or no reply within the command timeout: connect anew
    }
  }

  /** Forgets {@code c} unless another connection replaced it already. */
  private void drop(Connection c) {
    if (connection.compareAndSet(c, null)) {
      c.stateful().closeAsync();
    }
  }

  /**
   * Runs script {@code op}; its reply is a list of longs, strings and nested lists. NOSCRIPT means
   * the script did not run, so it is sent once more, whole: EVAL is routed like EVALSHA (by the
   * room's hash tag), so the node that answered (or the one a MOVED sends it to) runs it and caches
   * it for the next EVALSHA.
   */
  List<Object> eval(Op op, String[] keys, String... args) {
    return call(
        c -> {
          try {
            return c.evalsha(scripts.sha(op), ScriptOutputType.MULTI, keys, args);
          } catch (RedisNoScriptException e) {
            return c.eval(scripts.source(op), ScriptOutputType.MULTI, keys, args);
          }
        });
  }

  /** Runs plain commands: those every topology has, each on the keys of one room. */
  <T> T call(Function<RedisClusterCommands<String, String>, T> commands) {
    Connection c = connection.get();
    if (c == null || !c.stateful().isOpen()) {
      throw new LineUnavailableException("Redis is unreachable", null);
    }
    try {
      return commands.apply(c.sync());
    } catch (RedisException e) {
      throw failure(c, e);
    }
  }

  /**
   * Sends a script's command without waiting for it: {@code script.apply(false)} (an EVALSHA),
   * then, after a NOSCRIPT, {@code script.apply(true)} (the whole script, as {@link #eval} does).
   * {@code done} gets the reply, or the failure {@link #eval} would throw, on the thread that
   * completes the command: Lettuce's event loop, its timeout timer, or the caller's when the
   * command is refused at once (no connection). It must not block.
   */
  <T> void evalAsync(
      Function<Boolean, RedisCommand<byte[], byte[], T>> script,
      BiConsumer<T, RuntimeException> done) {
    Connection c = connection.get();
    if (c == null || !c.stateful().isOpen()) {
      done.accept(null, new LineUnavailableException("Redis is unreachable", null));
      return;
    }
    send(c, script, false, done);
  }

  private <T> void send(
      Connection c,
      Function<Boolean, RedisCommand<byte[], byte[], T>> script,
      boolean whole,
      BiConsumer<T, RuntimeException> done) {
    AsyncCommand<byte[], byte[], T> command = new AsyncCommand<>(script.apply(whole));
    command.whenComplete(
        (reply, t) -> {
          if (t == null) {
            done.accept(reply, null);
          } else if (!whole && t instanceof RedisNoScriptException) {
            send(c, script, true, done); // the script did not run: send it whole, once
          } else {
            done.accept(null, failure(c, t));
          }
        });
    try {
      dispatch(c.stateful(), command);
    } catch (RuntimeException e) {
      command.completeExceptionally(e);
    }
  }

  /** The connection's codec is for strings; a command's own arguments encode it (bytes here). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void dispatch(StatefulConnection<?, ?> c, AsyncCommand<byte[], byte[], ?> cmd) {
    ((StatefulConnection) c).dispatch(cmd);
  }

  /**
   * What a command's failure on {@code c} means for the line: {@link LineUnavailableException} when
   * Redis is gone, cannot serve now or did not answer in time (a connection gone or on a replica is
   * dropped, so the next heartbeat connects anew), {@link IllegalStateException} when Redis refused
   * the command.
   */
  private RuntimeException failure(Connection c, Throwable t) {
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RedisCommandExecutionException e) {
      if (replicaError(e.getMessage())) {
        drop(c); // the primary moved: the next heartbeat connects to the new one
        return new LineUnavailableException("Redis cannot serve now: " + e.getMessage(), e);
      }
      if (transientError(e.getMessage())) {
        return new LineUnavailableException("Redis cannot serve now: " + e.getMessage(), e);
      }
      return new IllegalStateException("Redis refused a line command: " + e.getMessage(), e);
    }
    if (t instanceof RedisCommandTimeoutException
        || t instanceof RedisCommandInterruptedException) {
      // the connection may well be alive: the heartbeat's PING decides
      return new LineUnavailableException("Redis is unreachable: " + t.getMessage(), t);
    }
    drop(c); // the channel is gone although isOpen() may not say so yet
    return new LineUnavailableException("Redis is unreachable: " + t.getMessage(), t);
  }

  StatefulConnection<String, String> connectionForTest() {
    Connection c = connection.get();
    return c == null ? null : c.stateful();
  }

  /** Drops the connection at once, as a crash would. */
  void sever() {
    Connection c = connection.getAndSet(null);
    closed = true;
    if (c != null) {
      c.stateful().closeAsync();
    }
  }

  /** Closes the connection and the client's threads. */
  @Override
  public void close() {
    closed = true;
    Connection c = connection.getAndSet(null);
    if (c != null) {
      c.stateful().close(); // before the client's shutdown, which would close it a second time
    }
    endpoint.close();
  }

  /**
   * Errors of a node that is not the primary to write to now: a write reached a demoted primary
   * (READONLY), a replica that lost its primary (MASTERDOWN), or a primary cut off from its
   * replicas under {@code min-replicas-to-write} (NOREPLICAS: likely replaced by a failover).
   */
  private static boolean replicaError(String message) {
    return message != null
        && (message.startsWith("READONLY")
            || message.startsWith("MASTERDOWN")
            || message.startsWith("NOREPLICAS"));
  }

  /** Errors Redis gives while it is starting, failing over or busy: worth a retry later. */
  private static boolean transientError(String message) {
    if (message == null) {
      return false;
    }
    return message.startsWith("LOADING")
        || message.startsWith("BUSY")
        || message.startsWith("TRYAGAIN")
        || message.startsWith("CLUSTERDOWN");
  }
}
