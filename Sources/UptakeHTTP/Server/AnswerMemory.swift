import CMicroHTTPD
import Foundation
import Synchronization

/// The bytes of answers handed to libmicrohttpd and not yet sent whole:
/// a slow reader of a large report pins its answer until it has read it, and
/// ten slow readers of a 19 MB CSV pinned 345 MB (issue 25). Reports are
/// refused with 503 while this is past the daemon's cap
/// (`ServerLimits.maxAnswerBacklogBytes`), and each answer is handed over
/// without a copy, so it is held once.
enum AnswerMemory {
  private static let bytes = Atomic<Int>(0)

  /// Bytes of answers waiting to be sent now.
  static var backlog: Int { bytes.load(ordering: .relaxed) }

  /// A libmicrohttpd response that sends `body` from memory of its own,
  /// counted until libmicrohttpd releases it; nil if it could not be made.
  static func response(_ body: [UInt8]) -> OpaquePointer? {
    // One block: the size, then the bytes sent, so the release knows both.
    let header = MemoryLayout<Int>.stride
    guard let block = malloc(header + max(1, body.count)) else { return nil }
    block.storeBytes(of: body.count, as: Int.self)
    body.withUnsafeBytes { bytes in
      if let source = bytes.baseAddress {
        block.advanced(by: header).copyMemory(from: source, byteCount: bytes.count)
      }
    }
    bytes.add(body.count, ordering: .relaxed)
    let response = MHD_create_response_from_buffer_with_free_callback_cls(
      body.count, block.advanced(by: header), { block in AnswerMemory.release(block) }, block)
    if response == nil { release(block) }
    return response
  }

  private static func release(_ block: UnsafeMutableRawPointer?) {
    guard let block else { return }
    bytes.subtract(block.load(as: Int.self), ordering: .relaxed)
    free(block)
  }
}
