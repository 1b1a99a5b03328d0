/// A version change after a download, as funnel_downloads' `later_changes`
/// packed it (schema/0009): the time (8 bytes, little-endian), then the
/// version left and the version reached, each as a length byte and UTF-8.
/// Only that migration's `uptake_pack_changes` writes it now, on a database
/// from before it; schema/0016 then drops the column with its table.
struct VersionChange: PackedEntry, Equatable {
  var timestampMs: Int64
  var from: String
  var to: String

  func pack(into bytes: inout [UInt8]) {
    timestampMs.pack(into: &bytes)
    for version in [from, to] {
      let text = version.utf8.prefix(Int(UInt8.max))
      bytes.append(UInt8(text.count))
      bytes.append(contentsOf: text)
    }
  }
}
