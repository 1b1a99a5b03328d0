/// The dashboard's files as uptaked serves them: the text the
/// EmbedDashboard plugin compiled into the binary (dashboard/ and Chart.js),
/// each with its content type and entity tag, prepared once rather than on
/// every request.
struct DashboardAssets: Sendable {
  /// One file, ready to send.
  struct Asset: Sendable {
    /// The bytes and their strong tag.
    let answer: RenderedAnswer
    let contentType: String
  }

  /// The files compiled into this binary, prepared when the service is
  /// built.
  static let embedded = DashboardAssets(files: embeddedDashboardFiles)

  private let byName: [String: Asset]

  init(files: [(name: String, text: String)]) {
    var byName: [String: Asset] = [:]
    for file in files {
      byName[file.name] = Asset(
        answer: RenderedAnswer(body: Array(file.text.utf8)),
        contentType: Self.contentType(ofFileNamed: file.name))
    }
    self.byName = byName
  }

  /// The file of that name, or nil.
  subscript(name: String) -> Asset? { byName[name] }

  /// The content type a browser needs for the file, from its extension.
  /// Every embedded file is UTF-8 text, so any other file is plain text:
  /// with `nosniff` a browser then neither runs nor renders it.
  static func contentType(ofFileNamed name: String) -> String {
    let dot = name.lastIndex(of: ".")
    switch dot.map({ name[name.index(after: $0)...].lowercased() }) {
    case "html": return "text/html; charset=utf-8"
    case "css": return "text/css; charset=utf-8"
    case "js": return "text/javascript; charset=utf-8"
    case "svg": return "image/svg+xml"
    case "json": return "application/json"
    default: return "text/plain; charset=utf-8"
    }
  }
}
