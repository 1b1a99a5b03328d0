import UptakeStore

/// The contract's exit codes (BSD sysexits).
enum ExitCode {
  static let ok: Int32 = 0
  static let usage: Int32 = 64
  static let dataError: Int32 = 65
  static let noInput: Int32 = 66
  static let unavailable: Int32 = 69
  static let ioError: Int32 = 74
}
