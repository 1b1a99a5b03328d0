/// A strict RFC 8259 JSON parser over raw bytes: well-formed UTF-8 only, no
/// lone surrogates, no leading zeros, no trailing data, bounded nesting.
/// It avoids Foundation so that the ingest path pays for nothing it does not
/// use, and keeps numbers as written.
public struct JSONParser: Sendable {
  /// The deepest nesting accepted; deeper documents are an error, which bounds
  /// the parser's recursion whatever a client sends.
  let maxDepth: Int

  /// The nesting a parser accepts unless told otherwise.
  public static let defaultMaxDepth = 32

  /// A parser accepting at most `maxDepth` nested arrays and objects.
  public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
    self.maxDepth = maxDepth
  }

  /// Parses a whole document; only whitespace may follow the value.
  public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
    var reader = JSONReader(bytes: bytes, maxDepth: maxDepth)
    return try reader.parseDocument()
  }

  /// Parses a whole document; only whitespace may follow the value.
  public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    // withUnsafeBytes only rethrows untyped errors, so carry the result out.
    try bytes.withUnsafeBytes { raw in Result { () throws(JSONParseError) in try parse(raw) } }
      .get()
  }
}
