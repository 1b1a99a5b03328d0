import Foundation

/// The import's progress line on stderr: drawn only when stderr is a
/// terminal, redrawn in place at most a few times a second, and wiped before
/// any other message so the two never run together.
struct ImportProgress {
  /// Redraws at most this often: fast enough to look alive, slow enough to
  /// read and to cost nothing.
  static let intervalNs: UInt64 = 250_000_000

  let isTerminal: Bool
  private let startNs = Self.nowNs()
  private var lastDrawNs: UInt64 = 0
  private var isShown = false

  init(isTerminal: Bool) {
    self.isTerminal = isTerminal
  }

  /// Redraws the line when the last drawing is old enough.
  mutating func update(lines: Int, events: Int, _ output: inout CommandOutput) {
    guard isTerminal else { return }
    let now = Self.nowNs()
    guard now - lastDrawNs >= Self.intervalNs else { return }
    lastDrawNs = now
    draw(status(lines: lines, events: events), &output)
  }

  /// Says that reading is done and the reports are being brought up to date.
  mutating func folding(lines: Int, events: Int, _ output: inout CommandOutput) {
    guard isTerminal else { return }
    draw(status(lines: lines, events: events) + ", updating reports", &output)
  }

  /// Leaves the final figures on a line of their own.
  mutating func finish(lines: Int, events: Int, _ output: inout CommandOutput) {
    guard isTerminal else { return }
    draw(status(lines: lines, events: events), &output)
    output.standardError("\n")
    isShown = false
  }

  /// Wipes the line, so that a message can take its place.
  mutating func clear(_ output: inout CommandOutput) {
    guard isShown else { return }
    output.standardError("\r\u{1B}[K")
    isShown = false
  }

  private mutating func draw(_ text: String, _ output: inout CommandOutput) {
    // Back to the line's start and erase it: the new text may be shorter.
    output.standardError("\r\u{1B}[K" + text)
    isShown = true
  }

  private func status(lines: Int, events: Int) -> String {
    let seconds = Double(Self.nowNs() - startNs) / 1e9
    let rate = seconds > 0 ? Int(Double(events) / seconds) : 0
    return "\(lines) lines read, \(rate) events/s"
  }

  private static func nowNs() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
