import Foundation

/// A file checked in with the package, by its path from the package's
/// root, e.g. `schema/openapi.json`.
public func packageFile(_ path: String) -> URL {
  // This file is Tests/UptakeTestSupport/Files/PackageFile.swift.
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(path)
}
