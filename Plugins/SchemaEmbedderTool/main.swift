import Foundation

// Usage: schema-embedder OUTPUT.swift MIGRATION.sql...
// Writes `embeddedMigrations`, the migrations in file-name order, each as a
// raw string literal whose delimiter is long enough for any SQL text.

let arguments = CommandLine.arguments.dropFirst()
guard let outputPath = arguments.first else {
  FileHandle.standardError.write(Data("usage: schema-embedder OUTPUT MIGRATION...\n".utf8))
  exit(64)
}

var source = "// Generated from schema/*.sql by the EmbedSchema plugin. Do not edit.\n"
source += "let embeddedMigrations: [(name: String, sql: String)] = [\n"
for path in arguments.dropFirst() {
  let url = URL(fileURLWithPath: path)
  let sql = try String(contentsOf: url, encoding: .utf8)
  let name = url.deletingPathExtension().lastPathComponent
  var hashes = "#"
  while sql.contains("\"" + hashes) { hashes += "#" }
  source += "  (name: \"\(name)\", sql: \(hashes)\"\"\"\n\(sql)\n\"\"\"\(hashes)),\n"
}
source += "]\n"
try source.write(toFile: outputPath, atomically: true, encoding: .utf8)
