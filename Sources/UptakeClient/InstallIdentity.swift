import Foundation

/// The install's anonymous id, chosen once and kept in the storage
/// directory, so unique counts and funnels follow one install across
/// launches.
enum InstallIdentity {
  static func load(in directory: URL) throws -> String {
    let file = directory.appendingPathComponent("install-id")
    if let data = try? Data(contentsOf: file) {
      let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      if (1...64).contains(text.count) { return text }
    }
    let id = UUID().uuidString.lowercased()
    try DurableFile.write(Data((id + "\n").utf8), to: file)
    return id
  }
}
