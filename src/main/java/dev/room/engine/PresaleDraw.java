package dev.room.engine;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * The pre-sale lottery's draw: an order for n arrivals, fixed by a 32-byte seed, that anyone
 * holding the seed can recompute.
 *
 * <p>The procedure: start from the arrival indexes {@code a = [0, 1, …, n-1]} (arrival order). For
 * {@code i} from {@code n-1} down to 1, draw {@code j} uniformly in {@code [0, i]} and swap {@code
 * a[i]} and {@code a[j]} (Fisher–Yates). Each draw reads the next word of a stream: word {@code c}
 * (c = 0, 1, 2, …) is the first 8 bytes, big-endian and unsigned, of {@code SHA-256(seed || c as 8
 * bytes big-endian)}, shifted right by one bit (63 bits). With {@code bound = i + 1}, a word {@code
 * x} is rejected when {@code x >= floor(2^63 / bound) * bound} (no modulo bias) and the next word
 * is read; else {@code j = x mod bound}. Then {@code a[k]} is the arrival index of the client at
 * place {@code k}. The published commitment is {@code SHA-256(seed)} in lower-case hex.
 */
public final class PresaleDraw {
  /** The seed's length in bytes. */
  public static final int SEED_BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private PresaleDraw() {}

  /** A fresh seed from {@link SecureRandom}. */
  public static byte[] newSeed() {
    byte[] seed = new byte[SEED_BYTES];
    RANDOM.nextBytes(seed);
    return seed;
  }

  /**
   * The order of {@code n} arrivals drawn with {@code seed}: element k is the arrival at place k.
   */
  public static int[] order(byte[] seed, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    MessageDigest sha = sha256();
    ByteBuffer input = ByteBuffer.allocate(seed.length + Long.BYTES);
    long counter = 0;
    for (int i = n - 1; i > 0; i--) {
      long bound = i + 1;
      long largestAccepted = Long.MAX_VALUE - Long.remainderUnsigned(Long.MIN_VALUE, bound);
      long x;
      do {
        input.clear();
        input.put(seed).putLong(counter++);
        x = ByteBuffer.wrap(sha.digest(input.array())).getLong() >>> 1;
      } while (x > largestAccepted);
      int j = (int) (x % bound);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }

  /** {@code SHA-256(bytes)} in lower-case hex. */
  public static String sha256Hex(byte[] bytes) {
    return hex(sha256().digest(bytes));
  }

  public static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder(bytes.length * 2);
    for (byte x : bytes) {
      b.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
    }
    return b.toString();
  }

  /** Parses lower- or upper-case hex; null when {@code s} is not an even run of hex digits. */
  public static byte[] unhex(String s) {
    if (s == null || (s.length() & 1) != 0) {
      return null;
    }
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = Character.digit(s.charAt(2 * i), 16);
      int lo = Character.digit(s.charAt(2 * i + 1), 16);
      if (hi < 0 || lo < 0) {
        return null;
      }
      out[i] = (byte) ((hi << 4) | lo);
    }
    return out;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
