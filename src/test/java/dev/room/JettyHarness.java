package dev.room;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.util.EnumSet;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** A real Jetty 12 (ee10) server on a free loopback port, for HTTP tests. */
public final class JettyHarness implements AutoCloseable {
  private final Server server;
  private final ServletContextHandler context;
  private final ServerConnector connector;

  public JettyHarness() {
    this(0);
  }

  /** A server on {@code port} (0 = any free port), for restarts that must keep their address. */
  public JettyHarness(int port) {
    server = new Server();
    connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    context = new ServletContextHandler("/");
    server.setHandler(context);
  }

  /** Adds {@code filter} on {@code /*} for REQUEST dispatches, async supported. */
  public FilterHolder filter(Filter filter) {
    FilterHolder h = new FilterHolder(filter);
    h.setAsyncSupported(true);
    context.addFilter(h, "/*", EnumSet.of(DispatcherType.REQUEST));
    return h;
  }

  /** Adds a no-arg {@link WaitingRoomFilter} configured by init-params, as web.xml would. */
  public FilterHolder webXmlFilter(String name, Map<String, String> params, String mapping) {
    FilterHolder h = new FilterHolder(WaitingRoomFilter.class);
    h.setName(name);
    h.setAsyncSupported(true);
    h.setInitParameters(params);
    context.addFilter(h, mapping, EnumSet.of(DispatcherType.REQUEST));
    return h;
  }

  public ServletHolder servlet(HttpServlet servlet, String mapping) {
    ServletHolder h = new ServletHolder(servlet);
    h.setAsyncSupported(true);
    context.addServlet(h, mapping);
    return h;
  }

  public ServletContextHandler context() {
    return context;
  }

  public JettyHarness start() throws Exception {
    server.start();
    return this;
  }

  public void stop() throws Exception {
    server.stop();
  }

  public int port() {
    return connector.getLocalPort();
  }

  public String url(String path) {
    return "http://127.0.0.1:" + port() + path;
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("jetty did not stop", e);
    }
  }
}
