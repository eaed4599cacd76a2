package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.Browser;
import dev.room.RoomMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The join guard across a fleet of two instances on one Redis: one limit, one spent set. */
class FleetJoinGuardTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private Fleet fleet;

  @AfterEach
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  private void start() throws Exception {
    fleet = new Fleet(redis.uri(), "guard-" + UUID.randomUUID(), 2, 1, 18);
    for (Fleet.Instance i : fleet.instances) {
      i.room.setMode(RoomMode.QUEUE_ALL); // every newcomer needs a ticket
    }
  }

  @Test
  void theJoinLimitIsSharedByTheFleet() throws Exception {
    start();
    Fleet.Instance a = fleet.instances.get(0);
    Fleet.Instance b = fleet.instances.get(1);
    a.room.setJoinLimit(2);
    b.room.setJoinLimit(2);
    assertEquals(200, new Browser().get(a.url("/")).statusCode());
    assertEquals(200, new Browser().get(b.url("/")).statusCode());
    Browser third = new Browser();
    assertEquals(
        429, third.get(a.url("/")).statusCode(), "the key's two joins were made elsewhere");
    assertEquals(429, third.get(b.url("/")).statusCode());
    assertNull(third.cookie("room_ticket"));
    assertEquals(2, a.room.liveQueueDepth());
  }

  @Test
  void aChallengeFromOneInstanceIsVerifiedByAnotherAndSpentForAll() throws Exception {
    start();
    Fleet.Instance a = fleet.instances.get(0);
    Fleet.Instance b = fleet.instances.get(1);
    a.room.setJoinChallenge(6);
    b.room.setJoinChallenge(6);
    Browser first = new Browser();
    String challenge = first.get(a.url("/queue/status/challenge"), "application/json").body();
    String payload = solve(challenge);
    first.setCookie(b.url("/"), "room_altcha", payload);
    assertEquals(200, first.get(b.url("/")).statusCode(), "signed by a, verified by b");
    assertNotNull(first.cookie("room_ticket"));

    Browser replay = new Browser();
    replay.setCookie(a.url("/"), "room_altcha", payload);
    assertEquals(403, replay.get(a.url("/")).statusCode(), "spent on b, refused on a");
    assertNull(replay.cookie("room_ticket"));
    assertEquals(1, a.room.challengesRefused());
    assertEquals(1, a.room.liveQueueDepth());
  }

  private static String solve(String challengeJson) throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode c = json.readTree(challengeJson);
    String salt = c.get("salt").asText();
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (long n = 0; n <= c.get("maxnumber").asLong(); n++) {
      String h =
          HexFormat.of().formatHex(sha.digest((salt + n).getBytes(StandardCharsets.US_ASCII)));
      if (h.equals(c.get("challenge").asText())) {
        String p =
            "{\"algorithm\":\"SHA-256\",\"challenge\":\""
                + h
                + "\",\"number\":"
                + n
                + ",\"salt\":\""
                + salt
                + "\",\"signature\":\""
                + c.get("signature").asText()
                + "\"}";
        return Base64.getEncoder().encodeToString(p.getBytes(StandardCharsets.US_ASCII));
      }
    }
    throw new AssertionError("unsolvable " + challengeJson);
  }
}
