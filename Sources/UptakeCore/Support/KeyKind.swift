import CCrypto

/// The two kinds of API key an app has.
public enum KeyKind: String, Sendable {
  /// Write-only and public: it ships inside the mobile app.
  case ingest
  /// Secret: it reads reports.
  case read
}
