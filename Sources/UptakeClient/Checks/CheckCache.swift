import Foundation

/// The last `200` check answer with its `ETag`, kept on disk so the next
/// launch can ask with `If-None-Match` and reuse it on `304`. Only an answer
/// to the very same query is reused.
final class CheckCache: @unchecked Sendable {
  private let lock = NSLock()
  private let file: URL
  private var entry: Entry?

  struct Entry: Codable, Equatable {
    let query: String
    let etag: String
    let body: Data
  }

  init(file: URL) {
    self.file = file
    entry = (try? Data(contentsOf: file)).flatMap {
      try? JSONDecoder().decode(Entry.self, from: $0)
    }
  }

  /// The cached answer to `query`, if any.
  func entry(for query: String) -> Entry? {
    lock.sync { entry?.query == query ? entry : nil }
  }

  func store(_ new: Entry) {
    let changed = lock.sync {
      defer { entry = new }
      return entry != new
    }
    // A lost or torn cache file costs one full answer, so no sync is needed.
    if changed, let data = try? JSONEncoder().encode(new) {
      try? data.write(to: file, options: .atomic)
    }
  }
}
