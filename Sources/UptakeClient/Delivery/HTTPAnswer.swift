import Foundation

/// A finished HTTP exchange.
struct HTTPAnswer: Sendable {
  let status: Int
  let body: Data
  private let headers: [String: String]

  init(status: Int, headers: [String: String], body: Data) {
    self.status = status
    self.body = body
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
  }

  /// A header by case-insensitive name.
  func header(_ name: String) -> String? { headers[name.lowercased()] }
}
