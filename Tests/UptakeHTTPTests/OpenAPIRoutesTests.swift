import Foundation
import Testing
import UptakeTestSupport

@testable import UptakeHTTP

/// schema/openapi.json lists exactly the routes the daemon serves, with the
/// key each needs. The routes are read from the router a real `Service`
/// builds, so a route added in code without the document (or the other way
/// round) fails here.
@Suite("schema/openapi.json lists every route uptaked serves, and no other")
struct OpenAPIRoutesTests {
  @Test("the same methods and paths, with the same key")
  func routesMatchDocument() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var configuration = Service.Configuration()
    configuration.databasePath = scratch.databasePath
    configuration.readConnections = 1
    let service = try Service(configuration: configuration)

    var served: [String: Access] = [:]
    for route in service.server.router.routes {
      served["\(route.method) \(route.pattern)"] = route.access
    }
    let documented = try Self.documentedOperations()

    for (operation, _) in served {
      #expect(documented[operation] != nil, "\(operation) is served but not in schema/openapi.json")
    }
    for operation in documented.keys {
      #expect(served[operation] != nil, "\(operation) is in schema/openapi.json but not served")
    }
    for (operation, access) in served {
      guard let schemes = documented[operation] else { continue }
      #expect(schemes == Self.schemes(for: access), "\(operation): security \(schemes.sorted())")
    }
  }

  /// The security schemes of the document that name each kind of key.
  static func schemes(for access: Access) -> Set<String> {
    switch access {
    case .open: []
    case .ingestKey: ["ingestKey", "ingestKeyHeader"]
    case .readKey: ["readKey", "readKeyHeader"]
    }
  }

  /// "METHOD /path" of every operation in the document, with the security
  /// schemes it accepts (empty: open).
  static func documentedOperations() throws -> [String: Set<String>] {
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: packageFile("schema/openapi.json")))
        as? [String: Any])
    let paths = try #require(root["paths"] as? [String: [String: Any]])
    let methods: Set<String> = [
      "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ]
    var operations: [String: Set<String>] = [:]
    for (path, item) in paths {
      for (method, operation) in item where methods.contains(method) {
        let requirements = try #require(
          (operation as? [String: Any])?["security"] as? [[String: Any]],
          "\(method) \(path) states its security")
        operations["\(method.uppercased()) \(path)"] = Set(requirements.flatMap(\.keys))
      }
    }
    return operations
  }
}
