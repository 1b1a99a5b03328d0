import Foundation
import PackagePlugin

/// Turns schema/NNNN_name.sql into a Swift source file of UptakeStore, so the
/// migrations travel inside the binary instead of beside it.
@main
struct EmbedSchema: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let schemaDirectory = context.package.directoryURL.appending(path: "schema")
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
        arguments: [output.path, "embeddedMigrations"] + namedFiles,
        inputFiles: migrationFiles,
        outputFiles: [output])
    ]
  }
}
