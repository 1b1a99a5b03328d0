import UptakeCore

/// What counts as an upgrade: reaching the target when one is configured,
/// else any version above the impression's.
struct UpgradeRule {
  let target: Version?

  init(target: Version?) { self.target = target }

  /// Versions repeat across thousands of installs: each text is numbered
  /// and parsed once.
  var versions = TextNumbering()

  /// Verdicts reached so far, by reached version and base (the
  /// impression's version, or 0 under a target): 0 not yet, 1 no, 2 yes.
  /// A funnel asks for every rise of every downloader, among a few
  /// versions: comparing parsed versions each time was a tenth of it.
  private var verdicts: [UInt8] = []
  /// `verdicts` holds `width` × `width` of them.
  private var width = 0
  /// Beyond this many numbered texts the verdicts are not kept.
  private static let maxWidth = 512

  mutating func isUpgrade(_ reached: Int32, from impressionVersion: Int32) -> Bool {
    let base = target == nil ? Int(impressionVersion) : 0
    let largest = max(Int(reached), base)
    if largest >= width {
      guard largest < Self.maxWidth else { return decide(reached, from: impressionVersion) }
      growVerdicts(toInclude: largest)
    }
    let slot = Int(reached) * width + base
    if verdicts[slot] == 0 { verdicts[slot] = decide(reached, from: impressionVersion) ? 2 : 1 }
    return verdicts[slot] == 2
  }

  private mutating func growVerdicts(toInclude number: Int) {
    var grown = max(width, 16)
    while grown <= number { grown *= 2 }
    var copied = [UInt8](repeating: 0, count: grown * grown)
    for reached in 0..<width {
      for base in 0..<width { copied[reached * grown + base] = verdicts[reached * width + base] }
    }
    (verdicts, width) = (copied, grown)
  }

  private mutating func decide(_ reached: Int32, from impressionVersion: Int32) -> Bool {
    guard let reachedVersion = versions.version(reached) else { return false }
    if let target { return reachedVersion >= target }
    guard let base = versions.version(impressionVersion) else { return false }
    return reachedVersion > base
  }

  /// Whether an impression on `version` comes before one on `other` at the
  /// same time: the lower version does (a text that is no version first),
  /// and between equal versions spelled apart, the lower text.
  mutating func isFirst(_ version: Int32, before other: Int32) -> Bool {
    let (left, right) = (versions.version(version), versions.version(other))
    switch (left, right) {
    case (nil, .some): return true
    case (.some, nil): return false
    case (.some(let left), .some(let right)) where left != right: return left < right
    default:
      return versions.texts[Int(version)].precedesInByteOrder(versions.texts[Int(other)])
    }
  }
}
