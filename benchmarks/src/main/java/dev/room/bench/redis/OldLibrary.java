package dev.room.bench.redis;

import dev.room.spi.Line;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An earlier build of the library (its jar: {@code make bench-before-jar}), loaded beside this one
 * in the same JVM so that {@link RedisPollBench} measures that build's whole Redis poll path (its
 * {@code RedisLine}, its Lua scripts, its client code) against this build's in one run, on one
 * {@code redis-server}: issue 16's "≥ 4× today in the same run", with "today" the code as it was.
 *
 * <p>Its {@code dev.room} classes and resources come from the old jar first (a child-first class
 * loader); Lettuce, Jackson and SLF4J are this JVM's (the old build used the same versions). The
 * old {@code RedisLine} is reached through a {@link Proxy} implementing this build's {@link Line}:
 * a call goes to the old method of the same name and parameter types, with this build's records
 * (the {@code Policy}) rebuilt as the old build's by their components. The benchmark calls only
 * methods both builds have ({@code setCapacity}, {@code tryEnter}, {@code arrive}, {@code poll},
 * {@code close}); any other fails loudly. Reflection costs well under a microsecond a call, against
 * the ~100 µs a poll of the old path costs.
 */
final class OldLibrary {
  private final ClassLoader loader;
  private final Method connect;
  private final Map<Method, Method> methods = new ConcurrentHashMap<>();
  private final Map<Object, Object> records = new ConcurrentHashMap<>();

  OldLibrary(Path jar) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException(
          "no earlier build at " + jar + " (make bench-before-jar builds it)");
    }
    try {
      loader = new ChildFirst(new URL[] {jar.toUri().toURL()}, OldLibrary.class.getClassLoader());
      connect =
          loader
              .loadClass("dev.room.redis.RedisLine")
              .getMethod("connect", String.class, String.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(jar + " holds no RedisLine.connect(String, String)", e);
    }
  }

  /** The old build's line for {@code roomId}, seen through this build's interface. */
  Line open(String redisUri, String roomId) {
    Object old = call(connect, null, new Object[] {redisUri, roomId});
    return (Line)
        Proxy.newProxyInstance(
            Line.class.getClassLoader(),
            new Class<?>[] {Line.class},
            (proxy, m, args) -> {
              if (m.getDeclaringClass() == Object.class) {
                return m.getName().equals("equals")
                    ? proxy == args[0]
                    : m.invoke(old, args); // hashCode, toString
              }
              Method target = methods.computeIfAbsent(m, this::counterpart);
              Object[] a = args == null ? new Object[0] : args.clone();
              for (int i = 0; i < a.length; i++) {
                if (a[i] instanceof Record r) {
                  a[i] = records.computeIfAbsent(r, this::rebuild);
                }
              }
              return call(target, old, a);
            });
  }

  private Method counterpart(Method m) {
    Class<?>[] types = m.getParameterTypes();
    Class<?>[] old = new Class<?>[types.length];
    try {
      for (int i = 0; i < types.length; i++) {
        old[i] = types[i].isPrimitive() ? types[i] : loader.loadClass(types[i].getName());
      }
      return loader.loadClass(Line.class.getName()).getMethod(m.getName(), old);
    } catch (ReflectiveOperationException e) {
      throw new UnsupportedOperationException(
          "the earlier build's Line has no " + m.getName() + " of these parameters", e);
    }
  }

  /** This build's record as the old build's record of the same name, component by component. */
  private Object rebuild(Object record) {
    try {
      Class<?> type = loader.loadClass(record.getClass().getName());
      RecordComponent[] cs = type.getRecordComponents();
      Class<?>[] types = new Class<?>[cs.length];
      Object[] values = new Object[cs.length];
      for (int i = 0; i < cs.length; i++) {
        types[i] = cs[i].getType();
        values[i] = record.getClass().getMethod(cs[i].getName()).invoke(record);
      }
      return type.getDeclaredConstructor(types).newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new UnsupportedOperationException(
          "cannot pass a " + record.getClass().getSimpleName() + " to the earlier build", e);
    }
  }

  private static Object call(Method m, Object target, Object[] args) {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Loads {@code dev.room} from its own jar before asking its parent (this build). */
  private static final class ChildFirst extends URLClassLoader {
    ChildFirst(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("dev.room.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          c = findClass(name);
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }

    @Override
    public URL getResource(String name) {
      URL own = name.startsWith("dev/room/") ? findResource(name) : null;
      return own != null ? own : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      return name.startsWith("dev/room/") ? findResources(name) : super.getResources(name);
    }
  }
}
