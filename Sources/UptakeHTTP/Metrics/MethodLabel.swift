/// The request method as metrics and logs name it. A method is whatever
/// token a client sends, so using it as sent let one client break the
/// exposition text (`A"}x`) or add a series per request; the methods HTTP
/// defines for APIs keep their name and every other one is `other`.
enum MethodLabel {
  static let other = "other"

  private static let known: Set<String> = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH",
  ]

  /// `method` when it is one of the known methods (compared as sent:
  /// methods are case-sensitive), else `other`.
  static func of(_ method: String) -> String {
    known.contains(method) ? method : other
  }
}
