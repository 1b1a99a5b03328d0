import Foundation
import Testing
import UptakeTestSupport

/// Two uptaked nodes over two clickhouse-server shards, and `uptake apps
/// … --clickhouse`: every node takes the same keys, a change made through
/// the CLI reaches both, and a batch retried to the other node counts once.
@Suite("Two nodes share the cluster's apps and keys", .serialized)
struct ClusterAppsEndToEndTests {
  @Test("the second node takes the first's app; an app added and a key rotated reach both")
  func appsAndKeysOnEveryNode() throws {
    let nodes = try TwoNodes()
    defer { nodes.tearDown() }
    let (first, second, flags) = (nodes.first, nodes.second, nodes.flags)
    #expect(second.ingestKey == nil, "a node joining a cluster with apps makes no app")
    #expect(try post(to: second, key: first.ingestKey, id: "d1") == 200)

    let added = try uptake(["apps", "add", "shop", "--json"] + flags)
    try #require(added.status == 0, "\(added.standardError)")
    let keys = try JSONDecoder().decode([String: String].self, from: added.outputData)
    let shopIngest = try #require(keys["ingestKey"])
    for node in [first.daemon, second] {
      try waitFor("the new app's key on a node") {
        try post(to: node, key: shopIngest, id: "s-\(node.port)") == 200
      }
    }
    #expect(try uptake(["apps", "add", "shop"] + flags).status == 65, "it exists already")

    let rotated = try uptake(["apps", "rotate", "shop", "--ingest", "--json"] + flags)
    try #require(rotated.status == 0, "\(rotated.standardError)")
    let newIngest = try #require(
      try JSONDecoder().decode([String: String].self, from: rotated.outputData)["ingestKey"])
    for node in [first.daemon, second] {
      try waitFor("the old key refused on a node") {
        try post(to: node, key: shopIngest, id: "old-\(node.port)") == 401
      }
      #expect(try post(to: node, key: newIngest, id: "new-\(node.port)") == 200)
    }
    #expect(try uptake(["apps", "rotate", "nope", "--read"] + flags).status == 65)

    let listed = try uptake(["apps", "list", "--json"] + flags)
    #expect(listed.standardOutput.contains(#""appId":"default""#))
    #expect(listed.standardOutput.contains(#""appId":"shop""#))
  }

  @Test("a batch retried to the other node is stored once in the cluster")
  func retryToTheOtherNode() throws {
    let nodes = try TwoNodes()
    defer { nodes.tearDown() }
    let (first, second, shards) = (nodes.first, nodes.second, nodes.shards)

    let batch = batchJSON((0..<100).map { eventJSON(id: "r\($0)", installId: "i\($0 % 17)") })
    for node in [first.daemon, second] {
      let answer = try HTTPClient().postJSON(node.url("/v1/events"), key: first.ingestKey, batch)
      #expect(answer.status == 200, "\(answer.text)")
    }
    try waitFor("both spools shipped") {
      try [first.daemon, second].allSatisfy { node in
        let text = try HTTPClient().get(node.url("/metrics"), key: nil).text
        return text.contains("\nuptake_spool_events 0\n")
          && text.contains("\nuptake_shipped_events_total 100\n")
      }
    }
    let counts = try shards.query(0, "SELECT uniqExact(id), count() FROM uptake.events")
    #expect(counts.hasPrefix("100\t"), "distinct ids and rows: \(counts)")
    let merged = try shards.query(0, "SELECT count() FROM uptake.events FINAL")
    #expect(merged == "100\n")
  }

  @Test("a configuration put through the CLI into the cluster is live on both nodes")
  func configurationOnEveryNode() throws {
    let nodes = try TwoNodes()
    defer { nodes.tearDown() }
    let document = TwoNodes.configuration(updateId: "u-cluster", latestVersion: "2.1.0")
    let put = try uptake(
      ["updates", "put", "--app", "default", "-"] + nodes.flags, input: Data(document.utf8))
    try #require(put.status == 0, "\(put.standardError)")
    #expect(put.standardOutput == "app default: configuration version 1 is live (1 entry)\n")
    for node in [nodes.first.daemon, nodes.second] {
      try waitFor("the configuration live on a node") {
        let answer = try HTTPClient().send(
          "GET", node.url("/v1/check?platform=ios&appVersion=2.0.0"),
          headers: ["X-Uptake-Key": nodes.first.ingestKey])
        return answer.status == 200 && answer.text.contains(#""updateid":"u-cluster""#)
      }
    }
    let got = try uptake(["updates", "get", "--app", "default"] + nodes.flags)
    #expect(got.status == 0)
    #expect(got.standardOutput == document + "\n")
    #expect(got.standardError == "app default: configuration version 1\n")
    let unknown = try uptake(
      ["updates", "put", "--app", "nope", "-"] + nodes.flags, input: Data(document.utf8))
    #expect(unknown.status == 65, "\(unknown.standardError)")
  }

  private func post(to node: Daemon, key: String, id: String) throws -> Int {
    try HTTPClient().postJSON(
      node.url("/v1/events"), key: key, batchJSON([eventJSON(id: id, installId: "i1")])
    ).status
  }

  private func waitFor(_ what: String, _ done: () throws -> Bool) throws {
    try NodeShippingEndToEndTests.waitFor(what, seconds: 15, done)
  }
}
