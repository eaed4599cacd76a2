package dev.room;

import dev.room.spi.Identities;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Function;

/**
 * The room's identity function, applied to a newcomer: the identity its ticket is bound to, or null
 * for an anonymous one (no function, a null or blank answer, or a function that threw). What it
 * returns is user code's and personal data: it goes to the line, which keeps only a salted hash of
 * it, and is never logged.
 */
final class Identity {
  private Identity() {}

  static String of(WaitingRoom r, HttpServletRequest req) {
    Function<HttpServletRequest, String> fn = r.web().identityFunction;
    if (fn == null) {
      return null;
    }
    try {
      String id = fn.apply(req);
      return Identities.anonymous(id) ? null : id;
    } catch (Throwable e) { // user code: anything it throws is caught, taken as anonymous
      r.userCode().failed(r.displayName(), "identity function", e);
      return null;
    }
  }
}
