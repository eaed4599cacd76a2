package dev.room.sample;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who may use the operator's dashboard: whoever presents the admin token.
 *
 * <p>Scripts send {@code Authorization: Bearer <token>}. People log in once, with the form or
 * {@code /admin?token=…}, and get the {@value #COOKIE} cookie (HttpOnly, SameSite=Strict, path
 * {@code /admin}). The cookie is not the token: it is an HMAC of it under a key made at start-up,
 * so it stops working when the server restarts. Tokens are compared in constant time. The token
 * itself is never logged; when none is configured a random one is written, owner-only, to a file.
 */
final class AdminAuth {
  static final String COOKIE = "room_admin";

  private final byte[] tokenDigest;
  private final byte[] key = new byte[32];
  private final String session;
  private final String howToLogIn;

  private AdminAuth(String token, String howToLogIn) {
    this.tokenDigest = sha256(token);
    new SecureRandom().nextBytes(key);
    this.session = hmac("admin-session:" + token);
    this.howToLogIn = howToLogIn;
  }

  /** Uses {@code token}, or makes one and writes it to {@code tokenFile}. */
  static AdminAuth create(String token, Path tokenFile) throws IOException {
    if (token != null && !token.isBlank()) {
      return new AdminAuth(token.strip(), "token from ROOM_ADMIN_TOKEN / --admin-token");
    }
    byte[] random = new byte[16];
    new SecureRandom().nextBytes(random);
    String generated = HexFormat.of().formatHex(random);
    Path file = tokenFile.toAbsolutePath();
    Files.createDirectories(file.getParent());
    Path tmp = Files.createTempFile(file.getParent(), ".room-admin-", ".tmp", ownerOnly());
    Files.writeString(tmp, generated + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return new AdminAuth(generated, "token in " + file);
  }

  /** For tests. */
  static AdminAuth of(String token) {
    return new AdminAuth(token, "test token");
  }

  /** Where the operator finds the token, for the start-up log (never the token itself). */
  String howToLogIn() {
    return howToLogIn;
  }

  boolean tokenMatches(String candidate) {
    return candidate != null && MessageDigest.isEqual(tokenDigest, sha256(candidate.strip()));
  }

  /** The bearer token or the session cookie. */
  boolean authorized(HttpServletRequest req) {
    String auth = req.getHeader("Authorization");
    if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return tokenMatches(auth.substring(7));
    }
    Cookie[] cookies = req.getCookies();
    if (cookies != null) {
      for (Cookie c : cookies) {
        if (COOKIE.equals(c.getName())) {
          return MessageDigest.isEqual(
              session.getBytes(StandardCharsets.US_ASCII),
              c.getValue().getBytes(StandardCharsets.US_ASCII));
        }
      }
    }
    return false;
  }

  /** Whether the request authenticated with a bearer token (no cookie, so no CSRF risk). */
  static boolean bearer(HttpServletRequest req) {
    String auth = req.getHeader("Authorization");
    return auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7);
  }

  /** The Set-Cookie value that logs a browser in for eight hours. */
  String sessionCookie(boolean secure) {
    return COOKIE
        + "="
        + session
        + "; Max-Age=28800; Path=/admin; HttpOnly; SameSite=Strict"
        + (secure ? "; Secure" : "");
  }

  static String logoutCookie() {
    return COOKIE + "=; Max-Age=0; Path=/admin; HttpOnly; SameSite=Strict";
  }

  /** A short, stable, opaque id for {@code secret} (a ticket's token) that reveals nothing. */
  String opaqueId(String secret) {
    return hmac("ticket:" + secret).substring(0, 16);
  }

  private String hmac(String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] out = mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static FileAttribute<?>[] ownerOnly() {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[] {
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
      };
    }
    return new FileAttribute<?>[0];
  }
}
