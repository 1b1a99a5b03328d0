import Foundation

/// Reads a file descriptor in large blocks and hands out its lines as spans
/// of the block, without copying them into Strings: an import of gigabytes
/// needs one buffer and one `read` per MiB.
///
/// A line longer than `maxLineBytes` is not kept whole; its bytes are skipped
/// up to its line end and it comes out as `.tooLong`, so one broken line
/// cannot make the reader hold the whole file.
final class LineReader {
  enum Line {
    /// The line's bytes without the `\n`; valid until the next `next()`.
    case bytes(UnsafeRawBufferPointer)
    case tooLong
  }

  /// The `errno` of a failed `read`.
  struct ReadError: Error {
    let code: Int32
  }

  /// One `read` asks for this much: large enough that system calls cost
  /// nothing next to parsing, small enough to stay in the CPU's caches.
  static let blockSize = 1 << 20

  private let descriptor: Int32
  private let maxLineBytes: Int
  private let buffer: UnsafeMutableRawBufferPointer
  /// The bytes read but not handed out yet are buffer[start..<end].
  private var start = 0
  private var end = 0
  private var atEndOfInput = false
  /// True while skipping the rest of a line over `maxLineBytes`.
  private var skipping = false

  init(descriptor: Int32, maxLineBytes: Int) {
    self.descriptor = descriptor
    self.maxLineBytes = maxLineBytes
    // What is left of a line after a block is at most maxLineBytes, so a
    // whole block always fits behind it.
    buffer = .allocate(byteCount: maxLineBytes + Self.blockSize, alignment: 16)
  }

  deinit {
    buffer.deallocate()
  }

  /// The next line, or nil at the end of the input. A last line without a
  /// line end is still a line.
  func next() throws(ReadError) -> Line? {
    let base = buffer.baseAddress!
    while true {
      if start < end, let newline = memchr(base + start, 0x0A, end - start) {
        let lineEnd = base.distance(to: newline)
        let lineStart = start
        start = lineEnd + 1
        if skipping || lineEnd - lineStart > maxLineBytes {
          skipping = false
          return .tooLong
        }
        return .bytes(UnsafeRawBufferPointer(rebasing: buffer[lineStart..<lineEnd]))
      }
      if skipping || end - start > maxLineBytes {
        skipping = true
        start = end
      }
      if atEndOfInput {
        if skipping {
          skipping = false
          return .tooLong
        }
        guard start < end else { return nil }
        let lineStart = start
        start = end
        return .bytes(UnsafeRawBufferPointer(rebasing: buffer[lineStart..<end]))
      }
      try fill()
    }
  }

  /// Moves the unfinished line to the front and reads a block behind it.
  private func fill() throws(ReadError) {
    let base = buffer.baseAddress!
    if start > 0 {
      if end > start { memmove(base, base + start, end - start) }
      end -= start
      start = 0
    }
    while true {
      let count = read(descriptor, base + end, buffer.count - end)
      if count > 0 {
        end += count
        return
      }
      if count == 0 {
        atEndOfInput = true
        return
      }
      if errno != EINTR { throw ReadError(code: errno) }
    }
  }
}
