import Foundation

/// Writes a file so a reader never sees half of it: the text goes to a
/// temporary file beside the target, is flushed to disk, then renamed over it.
enum AtomicFile {
  static func write(_ text: String, to path: String) throws(CommandError) {
    let url = URL(fileURLWithPath: path)
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())")
    do {
      guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
        throw CommandError(message: "cannot create \(temporary.path)", exitCode: ExitCode.ioError)
      }
      let handle = try FileHandle(forWritingTo: temporary)
      try handle.write(contentsOf: Data(text.utf8))
      try handle.synchronize()
      try handle.close()
      guard rename(temporary.path, url.path) == 0 else {
        throw CommandError(
          message: "cannot rename to \(path): \(String(cString: strerror(errno)))",
          exitCode: ExitCode.ioError)
      }
    } catch let error as CommandError {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw CommandError(
        message: "cannot write \(path): \(error.localizedDescription)", exitCode: ExitCode.ioError)
    }
  }
}
