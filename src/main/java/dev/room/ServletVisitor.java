package dev.room;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.function.Function;

/** How the {@link Gatekeeper} reads a servlet request: cookies and the client-key function. */
final class ServletVisitor implements Gatekeeper.Visitor<HttpServletRequest, HttpServletResponse> {
  static final ServletVisitor INSTANCE = new ServletVisitor();

  private ServletVisitor() {}

  @Override
  public String cookie(WaitingRoom r, HttpServletRequest req, String base) {
    return Cookies.read(req, r, base);
  }

  @Override
  public String clientKey(WaitingRoom r, HttpServletRequest req) {
    Function<HttpServletRequest, String> keyFn = r.web().clientKeyFunction;
    if (keyFn == null) {
      return "";
    }
    try {
      return Checks.clientKey(keyFn.apply(req));
    } catch (Throwable e) { // user code: anything it throws is caught, taken as no key
      r.userCode().failed(r.displayName(), "client-key function", e);
      return "";
    }
  }

  @Override
  public String identity(WaitingRoom r, HttpServletRequest req) {
    return Identity.of(r, req);
  }

  @Override
  public void grantRefused(WaitingRoom r, HttpServletRequest req, HttpServletResponse res) {
    Cookies.clear(req, res, r, Cookies.SESSION);
  }

  @Override
  public String remoteAddress(HttpServletRequest req) {
    String a = req.getRemoteAddr();
    return a == null ? "" : a;
  }
}
