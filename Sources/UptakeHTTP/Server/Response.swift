import UptakeCore

/// A response as a plain value; the server adapter sends it.
public struct Response: Sendable {
  public var status: Int
  public var headers: [(String, String)]
  public var body: [UInt8]

  public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A JSON body.
  public static func json(_ writer: JSONWriter, status: Int = 200) -> Response {
    json(writer.bytes, status: status)
  }

  /// A body that is JSON already.
  public static func json(_ body: [UInt8], status: Int = 200) -> Response {
    Response(status: status, headers: [("Content-Type", "application/json")], body: body)
  }

  /// A CSV body, as `format=csv` or `Accept: text/csv` ask.
  public static func csv(_ text: String) -> Response {
    Response(
      status: 200, headers: [("Content-Type", "text/csv; charset=utf-8")], body: Array(text.utf8))
  }

  /// A plain-text body.
  public static func text(
    _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8"
  )
    -> Response
  {
    Response(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
  }

  public func header(_ name: String) -> String? {
    headers.first { $0.0.lowercased() == name.lowercased() }?.1
  }
}
