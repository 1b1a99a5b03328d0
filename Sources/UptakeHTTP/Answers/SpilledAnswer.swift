import CMicroHTTPD
import Foundation

/// An answer written to an unlinked file and sent from it block by block
/// as the client reads (`AnswerBacklog`). The file has no name from the
/// moment it is written, so nothing is left behind when the daemon dies,
/// and its pages are the kernel's cache, which it reclaims, not the
/// daemon's memory.
final class SpilledAnswer {
  /// The size of each read from the file, the buffer libmicrohttpd keeps
  /// for the response while it sends it.
  static let blockBytes = 64 << 10

  private let descriptor: Int32
  private let size: Int
  private let released: (Int) -> Void

  private init(descriptor: Int32, size: Int, released: @escaping (Int) -> Void) {
    self.descriptor = descriptor
    self.size = size
    self.released = released
  }

  deinit {
    close(descriptor)
    released(size)
  }

  /// A response reading `body` back from a new unlinked file in
  /// `directory`; nil when the file cannot be made or written whole (a
  /// full disk), and then nothing is counted or left behind. `counted` is
  /// told the size when the response is made, `released` when
  /// libmicrohttpd has done with it.
  static func response(
    _ body: [UInt8], in directory: String, counted: (Int) -> Void,
    released: @escaping (Int) -> Void
  ) -> OpaquePointer? {
    guard let descriptor = writeUnlinked(body, in: directory) else { return nil }
    counted(body.count)
    let answer = SpilledAnswer(descriptor: descriptor, size: body.count, released: released)
    let context = Unmanaged.passRetained(answer).toOpaque()
    let response = MHD_create_response_from_callback(
      UInt64(body.count), blockBytes,
      { context, position, buffer, room in
        let answer = Unmanaged<SpilledAnswer>.fromOpaque(context!).takeUnretainedValue()
        return answer.read(at: position, into: buffer!, room: room)
      },
      context,
      { context in Unmanaged<SpilledAnswer>.fromOpaque(context!).release() })
    if response == nil { Unmanaged<SpilledAnswer>.fromOpaque(context).release() }
    return response
  }

  /// Up to `room` bytes from `position`: libmicrohttpd's "end of stream"
  /// (-1) past the end, and its "end with error" (-2), which closes the
  /// connection, if the file cannot be read.
  private func read(at position: UInt64, into buffer: UnsafeMutablePointer<CChar>, room: Int)
    -> Int
  {
    let wanted = min(room, size - Int(min(position, UInt64(size))))
    guard wanted > 0 else { return -1 }
    while true {
      let count = pread(descriptor, buffer, wanted, off_t(position))
      if count < 0 && errno == EINTR { continue }
      return count > 0 ? count : -2
    }
  }

  /// A descriptor of a file in `directory` that holds `body` and has no
  /// name; nil, with nothing left behind, when it cannot be made.
  private static func writeUnlinked(_ body: [UInt8], in directory: String) -> Int32? {
    guard let descriptor = openUnlinked(in: directory) else { return nil }
    let written = body.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
    guard written else {
      close(descriptor)
      return nil
    }
    return descriptor
  }

  /// A new file in `directory` without a name, open for reading and
  /// writing (0600): O_TMPFILE, so it never has one even for an instant;
  /// where the file system cannot, mkstemp and at once unlink.
  private static func openUnlinked(in directory: String) -> Int32? {
    let nameless = uptake_open_nameless(directory)
    if nameless >= 0 { return nameless }
    var template = Array("\(directory)/.uptake-answer-XXXXXX".utf8CString)
    // mkstemp creates the file 0600 and opens it exclusively.
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { return nil }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    return descriptor
  }
}
