import Foundation
import PackagePlugin

/// Compiles the dashboard into UptakeHTTP: every file directly in
/// dashboard/, and Chart.js from Debian's libjs-chart.js, so uptaked serves
/// the whole page from its own binary and from no other origin.
@main
struct EmbedDashboard: BuildToolPlugin {
  /// Chart.js 3.9.1's UMD build, as Debian 12 installs it.
  static let chartJS = URL(fileURLWithPath: "/usr/share/javascript/chart.js/chart.min.js")

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard FileManager.default.isReadableFile(atPath: Self.chartJS.path) else {
      throw Failure(
        description: "\(Self.chartJS.path) is missing: the dashboard embeds Chart.js from the"
          + " Debian package libjs-chart.js; install it with tools/install-deps")
    }
    // SwiftPM calls this plugin only when it plans the build anew (a
    // Swift file added, Package.swift changed), so a list of dashboard/
    // made here would go stale: a file added later would be missing, a
    // file removed would fail the build. Instead the tool lists dashboard/
    // itself and runs on every build, because it rewrites `stamp`, one of
    // its inputs, each time; it rewrites the Swift file only when the
    // bytes change, so an unchanged dashboard costs no compile.
    let stamp = context.pluginWorkDirectoryURL.appending(path: "embedded-at")
    if !FileManager.default.fileExists(atPath: stamp.path) {
      try Data().write(to: stamp)
    }
    let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedDashboardFiles.swift")
    let dashboard = context.package.directoryURL.appending(path: "dashboard")
    return [
      .buildCommand(
        displayName: "Embedding the dashboard and Chart.js",
        executable: try context.tool(named: "text-embedder").url,
        arguments: [
          "--touch", stamp.path, output.path, "embeddedDashboardFiles",
          "--directory", dashboard.path, Self.chartJS.lastPathComponent, Self.chartJS.path,
        ],
        inputFiles: [stamp, Self.chartJS],
        outputFiles: [output])
    ]
  }
}
