import CMicroHTTPD
import Foundation
import Synchronization

/// The bytes of answers handed to libmicrohttpd and not yet sent whole.
/// A slow reader of a large report keeps its answer until it has read it,
/// and ten slow readers of a 19 MB CSV once pinned 345 MB of memory
/// (issue 25). So an answer past `spillThresholdBytes` is written to an
/// unlinked file beside the database and read from it as the client takes
/// it (`SpilledAnswer`): a slow reader then holds disk, not memory. Smaller
/// answers are held once in memory, without a further copy. Reports are
/// refused with 503 while the backlog of both is past the daemon's cap
/// (`ServerLimits.maxAnswerBacklogBytes`).
enum AnswerBacklog {
  /// Answers larger than this go to a file when a directory is given: a
  /// few hundred connections' worth stays far inside the daemon's memory,
  /// and the reports and checks an app asks for every minute are smaller.
  static let spillThresholdBytes = 256 << 10

  private static let heldBytes = Atomic<Int>(0)
  private static let spilledBytes = Atomic<Int>(0)

  /// Bytes of answers waiting to be sent now, in memory and in files.
  static var backlog: Int { held + spilled }

  /// Bytes of answers waiting to be sent from memory.
  static var held: Int { heldBytes.load(ordering: .relaxed) }

  /// Bytes of answers waiting to be sent from files.
  static var spilled: Int { spilledBytes.load(ordering: .relaxed) }

  /// A libmicrohttpd response that sends `body`, counted until
  /// libmicrohttpd releases it: from a file in `spillDirectory` when it is
  /// large and the file can be written, else from memory of its own; nil
  /// if it could not be made.
  static func response(_ body: [UInt8], spillDirectory: String?) -> OpaquePointer? {
    if body.count > spillThresholdBytes, let spillDirectory,
      let response = SpilledAnswer.response(
        body, in: spillDirectory,
        counted: { spilledBytes.add($0, ordering: .relaxed) },
        released: { spilledBytes.subtract($0, ordering: .relaxed) })
    {
      return response
    }
    return heldResponse(body)
  }

  private static func heldResponse(_ body: [UInt8]) -> OpaquePointer? {
    // One block: the size, then the bytes sent, so the release knows both.
    let header = MemoryLayout<Int>.stride
    guard let block = malloc(header + max(1, body.count)) else { return nil }
    block.storeBytes(of: body.count, as: Int.self)
    body.withUnsafeBytes { bytes in
      if let source = bytes.baseAddress {
        block.advanced(by: header).copyMemory(from: source, byteCount: bytes.count)
      }
    }
    heldBytes.add(body.count, ordering: .relaxed)
    let response = MHD_create_response_from_buffer_with_free_callback_cls(
      body.count, block.advanced(by: header), { block in AnswerBacklog.release(block) }, block)
    if response == nil { release(block) }
    return response
  }

  private static func release(_ block: UnsafeMutableRawPointer?) {
    guard let block else { return }
    heldBytes.subtract(block.load(as: Int.self), ordering: .relaxed)
    free(block)
  }
}
