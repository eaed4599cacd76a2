package dev.room.redis;

import dev.room.AdmissionMode;
import dev.room.JettyHarness;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * One app instance in its own JVM, for the fleet tests that run several: an embedded Jetty with a
 * {@link WaitingRoom} in SESSIONS mode on a {@link RedisLine} (real clock, background heartbeat),
 * in front of {@link SessionFleetTest.Shop}, and a plain admin server the test reads the room
 * through. Prints {@code READY <app port> <admin port>} once serving; runs until killed or until
 * its standard input closes (the test's process ended).
 *
 * <p>Arguments: redis URI, room id, capacity, instance name.
 */
public final class FleetNode {
  private FleetNode() {}

  public static void main(String[] args) throws Exception {
    RedisLine line = RedisLine.builder(args[0], args[1]).instanceName(args[3]).build();
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(Integer.parseInt(args[2]))
            .line(line)
            .admissionMode(AdmissionMode.SESSIONS)
            .build();
    JettyHarness jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(new SessionFleetTest.Shop(), "/*");
    jetty.start();
    JettyHarness admin = new JettyHarness(); // no room in front: the test's window into it
    admin.servlet(
        new HttpServlet() {
          private static final long serialVersionUID = 1L;

          @Override
          protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            String body =
                switch (req.getRequestURI()) {
                  case "/sessions" -> Integer.toString(room.activeSessions());
                  case "/offers" -> Integer.toString(room.outstandingOffers());
                  case "/end" -> Boolean.toString(room.endSession(req.getQueryString()));
                  default -> "?";
                };
            res.getWriter().write(body);
          }
        },
        "/*");
    admin.start();
    System.out.println("READY " + jetty.port() + " " + admin.port());
    System.out.flush();
    while (System.in.read() >= 0) {
      // the test talks to us over HTTP; end of input means it is gone
    }
    admin.close();
    jetty.close();
    room.close();
  }
}
