import Foundation
import PackagePlugin

/// Turns schema/NNNN_name.sql into a Swift source file of UptakeStore (the
/// SQLite migrations), and schema/clickhouse/NNNN_name.sql into one of
/// UptakeCluster (the ClickHouse ones), so the migrations travel inside the
/// binary instead of beside it.
@main
struct EmbedSchema: BuildToolPlugin {
  /// Per target: the folder of its migrations and the Swift name of the list.
  static let schemas = [
    "UptakeStore": (folder: "schema", variable: "embeddedMigrations"),
    "UptakeCluster": (folder: "schema/clickhouse", variable: "embeddedClusterMigrations"),
  ]

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let schema = Self.schemas[target.name] else {
      throw Failure(description: "EmbedSchema knows no migrations of target \(target.name)")
    }
    let schemaDirectory = context.package.directoryURL.appending(path: schema.folder)
    let migrationFiles = try FileManager.default
      .contentsOfDirectory(at: schemaDirectory, includingPropertiesForKeys: nil)
      .filter { $0.pathExtension == "sql" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
    let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
    // A migration is named by its file name without `.sql`: the name each
    // database records once the migration has run.
    let namedFiles = migrationFiles.flatMap {
      [$0.deletingPathExtension().lastPathComponent, $0.path]
    }
    return [
      .buildCommand(
        displayName: "Embedding \(migrationFiles.count) schema migrations",
        executable: try context.tool(named: "text-embedder").url,
        arguments: [output.path, schema.variable] + namedFiles,
        inputFiles: migrationFiles,
        outputFiles: [output])
    ]
  }
}
