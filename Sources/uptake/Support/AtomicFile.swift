import Foundation

/// Writes a file so a reader never sees half of it: the text goes to a
/// temporary file beside the target, is flushed to disk, then renamed over it.
///
/// The rename puts a new file in the old one's place, so the new one is
/// given the old one's permission bits, and its owner and group when run as
/// root (as the cron export runs): an export the operator made 0600, or
/// 0640 for a group that picks it up, stays so. A new file takes the usual
/// 0666 less the umask, like a shell's `>`: the operator names the file and
/// chooses who reads it by the umask (`umask 077` in a cron line).
enum AtomicFile {
  static func write(_ text: String, to path: String) throws(CommandError) {
    let url = URL(fileURLWithPath: path)
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())").path
    do {
      // A temporary file left by a killed run of the same pid is stale;
      // O_EXCL then never writes through a link planted under its name.
      unlink(temporary)
      let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
      guard descriptor >= 0 else {
        throw CommandError(
          message: "cannot create \(temporary): \(String(cString: strerror(errno)))",
          exitCode: ExitCode.ioError)
      }
      let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
      try takeOwnerAndMode(of: path, descriptor)
      try handle.write(contentsOf: Data(text.utf8))
      try handle.synchronize()
      try handle.close()
      guard rename(temporary, path) == 0 else {
        throw CommandError(
          message: "cannot rename to \(path): \(String(cString: strerror(errno)))",
          exitCode: ExitCode.ioError)
      }
    } catch let error as CommandError {
      unlink(temporary)
      throw error
    } catch {
      unlink(temporary)
      throw CommandError(
        message: "cannot write \(path): \(error.localizedDescription)", exitCode: ExitCode.ioError)
    }
  }

  /// Gives the open file the owner, group and permission bits of the file
  /// at `path`, when there is one. Only root may give a file away; anyone
  /// may give their file a group they are in, so that is tried too. The
  /// owner first: changing it clears bits that the mode then sets again.
  private static func takeOwnerAndMode(of path: String, _ descriptor: Int32)
    throws(CommandError)
  {
    var target = stat()
    guard stat(path, &target) == 0 else { return }
    let asRoot = geteuid() == 0
    let owner = asRoot ? target.st_uid : uid_t.max  // uid_t.max: -1, the owner unchanged
    if fchown(descriptor, owner, target.st_gid) != 0 && asRoot {
      throw CommandError(
        message: "cannot give the new \(path) the old one's owner: "
          + String(cString: strerror(errno)), exitCode: ExitCode.ioError)
    }
    guard fchmod(descriptor, target.st_mode & 0o7777) == 0 else {
      throw CommandError(
        message: "cannot give the new \(path) the old one's mode: "
          + String(cString: strerror(errno)), exitCode: ExitCode.ioError)
    }
  }
}
