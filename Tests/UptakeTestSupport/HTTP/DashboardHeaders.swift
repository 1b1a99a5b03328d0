/// The headers every dashboard answer must carry, written out as the issue
/// and docs/api.md state them (not read from the code under test), for the
/// router's tests and the real daemon's alike.
public enum DashboardHeaders {
  public static let security = [
    "Content-Security-Policy":
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
      + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
  ]
}
