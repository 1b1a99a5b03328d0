// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Uptake",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .executable(name: "uptaked", targets: ["uptaked"]),
    .executable(name: "uptake", targets: ["uptake"]),
    // What an app embeds: Foundation only, no dependency on the server's targets.
    .library(name: "UptakeClient", targets: ["UptakeClient"]),
    .executable(name: "uptake-example", targets: ["uptake-example"]),
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    // glibc's malloc settings (malloc.h), which the Swift Glibc module leaves out.
    .systemLibrary(name: "CMalloc"),
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"])]),

    .target(name: "UptakeCore", dependencies: ["CCrypto"]),
    .target(
      name: "UptakeStore", dependencies: ["UptakeCore", "CSQLite"],
      // Release builds skip the runtime checks of exclusive access, which
      // the funnel's loops over tens of thousands of packed entries paid on
      // every access (docs/performance.md); debug builds, which the tests
      // run, keep them.
      swiftSettings: [
        .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
      ],
      plugins: ["EmbedSchema"]),
    // ClickHouse as the store of record past one box (issue 22): its HTTP
    // client, the cluster's schema, and shipping a node's spool (a SQLite
    // database, hence UptakeStore) to it.
    .target(
      name: "UptakeCluster", dependencies: ["UptakeCore", "UptakeStore"], plugins: ["EmbedSchema"]),
    .target(
      name: "UptakeHTTP",
      dependencies: ["UptakeCore", "UptakeStore", "UptakeCluster", "CMicroHTTPD", "CZlib"],
      plugins: ["EmbedDashboard"]),
    .executableTarget(
      name: "uptaked", dependencies: ["UptakeHTTP", "UptakeCluster", "UptakeStore", "CMalloc"]),
    .executableTarget(name: "uptake", dependencies: ["UptakeStore", "UptakeCluster"]),
    .target(name: "UptakeDataGen", dependencies: ["UptakeCore"]),
    .target(name: "UptakeClient"),
    .executableTarget(name: "uptake-example", dependencies: ["UptakeClient"]),
    .executableTarget(
      name: "uptake-datagen", dependencies: ["UptakeDataGen"], path: "tools/datagen"),
    .executableTarget(
      name: "uptake-collide", dependencies: ["UptakeCore"], path: "tools/collide"),

    // Migrations live in schema/ as plain SQL, the dashboard in dashboard/
    // as HTML, CSS and JavaScript; these plugins compile them into
    // UptakeStore and UptakeHTTP so the binaries run from any directory.
    .executableTarget(name: "text-embedder", path: "Plugins/TextEmbedder"),
    .plugin(
      name: "EmbedSchema", capability: .buildTool(),
      dependencies: ["text-embedder"]),
    .plugin(
      name: "EmbedDashboard", capability: .buildTool(),
      dependencies: ["text-embedder"]),

    // What the test targets share: scratch directories, the built programs
    // and a daemon to run, an HTTP client, event JSON. Foundation only, so
    // UptakeClientTests stays clear of the server's targets.
    .target(name: "UptakeTestSupport", path: "Tests/UptakeTestSupport"),
    .testTarget(name: "UptakeCoreTests", dependencies: ["UptakeCore", "UptakeTestSupport"]),
    .testTarget(
      name: "UptakeStoreTests", dependencies: ["UptakeStore", "UptakeDataGen", "UptakeTestSupport"]),
    .testTarget(name: "UptakeHTTPTests", dependencies: ["UptakeHTTP", "UptakeTestSupport"]),
    // Starts two clickhouse-server processes as two shards (Debian's
    // clickhouse-server, installed by tools/install-deps).
    .testTarget(
      name: "UptakeClusterTests",
      dependencies: ["UptakeCluster", "UptakeStore", "UptakeCore", "UptakeTestSupport"]),
    // Runs the built uptaked and uptake, which --build-tests builds beside it.
    .testTarget(
      name: "EndToEndTests", dependencies: ["UptakeCore", "UptakeDataGen", "UptakeTestSupport"]),
    // Runs the built uptaked and uptake-example, which --build-tests builds beside it.
    .testTarget(name: "UptakeClientTests", dependencies: ["UptakeClient", "UptakeTestSupport"]),
    // The command lines of uptake and uptaked, parsed without running
    // either: SwiftPM lets a test target import executable targets.
    .testTarget(
      name: "UptakeCLITests",
      dependencies: [
        "uptake", "uptaked", "UptakeCore", "UptakeHTTP", "UptakeCluster", "UptakeTestSupport",
      ]),
  ]
)
