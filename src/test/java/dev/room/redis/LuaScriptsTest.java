package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.room.redis.LuaScripts.Op;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Lua scripts as files: one per {@link Op} and one {@link Op} per file, the library exactly the
 * pieces {@link LuaScripts#LIBRARY} names, and every assembled script accepted by a real Redis.
 */
class LuaScriptsTest {
  @Test
  void everyOpHasAScriptAndEveryScriptAnOp() throws Exception {
    Set<String> ops =
        Arrays.stream(Op.values()).map(Op::file).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(ops, filesIn("ops"));
  }

  @Test
  void everyLibraryPieceIsAssembledAndEveryAssembledPieceExists() throws Exception {
    assertEquals(new TreeSet<>(LuaScripts.LIBRARY), filesIn("lib"));
  }

  @Test
  void everyAssembledScriptLoadsIntoRedis() throws Exception {
    LuaScripts scripts = new LuaScripts();
    try (RedisServer redis = RedisServer.start()) {
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        for (Op op : Op.values()) {
          // SCRIPT LOAD compiles the script: a syntax error or a clash in the library fails here.
          assertEquals(scripts.sha(op), c.sync().scriptLoad(scripts.source(op)), op.name());
        }
      } finally {
        client.shutdown();
      }
    }
  }

  private static Set<String> filesIn(String dir) throws IOException, URISyntaxException {
    Path path = Path.of(LuaScripts.class.getResource(dir).toURI());
    try (Stream<Path> files = Files.list(path)) {
      return files
          .map(f -> dir + "/" + f.getFileName())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
