import CZlib

/// Inflates a gzip body in fixed-size steps with a hard cap on the output, so
/// a small body that would inflate to gigabytes (a "zip bomb") is refused
/// after at most `maxOutputBytes` plus one step of memory.
public enum GzipDecoder {
  public enum Failure: Error, Equatable {
    /// Not valid gzip data.
    case malformed
    /// Inflates to more than the cap.
    case tooLarge
  }

  /// Output grows by this much per inflate call.
  static let stepBytes = 64 * 1024

  public static func decode(_ input: [UInt8], maxOutputBytes: Int) throws(Failure) -> [UInt8] {
    var stream = z_stream()
    // 15 window bits + 16: gzip framing only, as Content-Encoding: gzip says.
    guard uptake_inflate_init2(&stream, 15 + 16) == Z_OK else { throw .malformed }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var step = [UInt8](repeating: 0, count: stepBytes)
    let outcome: Result<Void, Failure> = input.withUnsafeBytes { inputBytes in
      stream.next_in = UnsafeMutablePointer(
        mutating: inputBytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
      stream.avail_in = uInt(inputBytes.count)
      while true {
        let result: Int32 = step.withUnsafeMutableBytes { stepBytes in
          stream.next_out = stepBytes.baseAddress?.assumingMemoryBound(to: Bytef.self)
          stream.avail_out = uInt(stepBytes.count)
          return inflate(&stream, Z_NO_FLUSH)
        }
        let produced = Self.stepBytes - Int(stream.avail_out)
        if output.count + produced > maxOutputBytes { return .failure(.tooLarge) }
        output.append(contentsOf: step[0..<produced])
        switch result {
        case Z_STREAM_END:
          // Bytes after the gzip member are not part of a valid body.
          return stream.avail_in == 0 ? .success(()) : .failure(.malformed)
        case Z_OK:
          continue
        default:
          // Corrupt data, or input that ends before the stream does.
          return .failure(.malformed)
        }
      }
    }
    try outcome.get()
    return output
  }
}
