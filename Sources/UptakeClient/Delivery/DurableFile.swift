import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// File writes that survive a crash: either the whole new content is on disk
/// or the old one still is.
enum DurableFile {
  /// Replaces `url`'s content with `data`: a temporary file is written and
  /// synced, then renamed over `url`, and the directory is synced so the
  /// rename itself is on disk.
  static func write(_ data: Data, to url: URL) throws {
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
    }
    do {
      let handle = try FileHandle(forWritingTo: temporary)
      defer { try? handle.close() }
      try handle.write(contentsOf: data)
      try handle.synchronize()
      guard rename(temporary.path, url.path) == 0 else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
      }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
    syncDirectory(url.deletingLastPathComponent())
  }

  /// Makes the directory's entries (new, renamed or removed files) durable.
  /// Best effort: some file systems refuse to sync a directory, and the data
  /// itself is already synced.
  static func syncDirectory(_ directory: URL) {
    guard let handle = FileHandle(forReadingAtPath: directory.path) else { return }
    try? handle.synchronize()
    try? handle.close()
  }
}
