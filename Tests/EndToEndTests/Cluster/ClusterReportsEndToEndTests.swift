import Foundation
import Testing
import UptakeDataGen
import UptakeTestSupport

/// The reports a node reads from the cluster, against one box holding the
/// same requests: the same bytes, whatever the duplicates; and never a
/// part of the events when a shard is down.
@Suite("Reports read from the cluster", .serialized)
struct ClusterReportsEndToEndTests {
  /// Seeded events over the last 20 days: four updates, every action,
  /// installs shared across updates, some without installId or id, some
  /// test events. Posted in batches of 50, in a shuffled order.
  static func batches(seed: UInt64) -> [String] {
    var random = SeededGenerator(seed: seed)
    let days = Days()
    let actions = ["impression", "download", "later", "ignore"]
    var events: [String] = []
    for index in 0..<600 {
      let day = -Int64(Int.random(in: 0..<20, using: &random))
      let clock = String(
        format: "%02d:%02d:%02d.%03d", Int.random(in: 0..<24, using: &random),
        Int.random(in: 0..<60, using: &random),
        Int.random(in: 0..<60, using: &random), Int.random(in: 0..<1000, using: &random))
      let install =
        Int.random(in: 0..<10, using: &random) == 0
        ? nil : "install-\(Int.random(in: 0..<120, using: &random))"
      events.append(
        eventJSON(
          id: Int.random(in: 0..<8, using: &random) == 0 ? nil : "event-\(index)",
          updateId: "update-\(Int.random(in: 0..<4, using: &random))",
          action: actions[Int.random(in: 0..<4, using: &random)],
          appVersion: ["2.0.0", "2.1.0", "2.10.0", "2.1.0-beta.1"][
            Int.random(in: 0..<4, using: &random)], installId: install,
          timestamp: days.time(day, clock),
          platform: [nil, "ios", "android"][Int.random(in: 0..<3, using: &random)],
          osVersion: [nil, "17.0", "16.4.1", "9"][Int.random(in: 0..<4, using: &random)],
          test: Int.random(in: 0..<6, using: &random) == 0 ? true : nil))
    }
    for index in events.indices.reversed() {
      events.swapAt(index, Int.random(in: 0...index, using: &random))
    }
    return stride(from: 0, to: events.count, by: 50).map {
      batchJSON(Array(events[$0..<min($0 + 50, events.count)]))
    }
  }

  @Test("every report answers as one box does: updates, one update, report, adoption, funnel")
  func sameAsOneBox() throws {
    let nodes = try TwoNodes()
    defer { nodes.tearDown() }
    let (node, shards) = (nodes.first, nodes.shards)
    let oneBox = try DaemonFixture()
    defer { oneBox.tearDown() }
    let seed = UInt64.random(in: 1...UInt64.max)
    print("cluster reports seed: \(seed)")
    let batches = Self.batches(seed: seed)
    // Every batch once to the first node, and a third of them again to the
    // second, as clients retry to whichever node answers: the cluster then
    // holds those events twice until its merges, one box once.
    let retried = batches.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
    for (batch, target) in batches.map({ ($0, node.daemon) }) + retried.map({ ($0, nodes.second) })
    {
      for (url, key) in [
        (target.url("/v1/events"), node.ingestKey),
        (oneBox.daemon.url("/v1/events"), oneBox.ingestKey),
      ] {
        let answer = try HTTPClient().postJSON(url, key: key, batch)
        try #require(answer.status == 200, "\(answer.text)")
      }
    }
    try NodeShippingEndToEndTests.waitUntilShipped(node)
    try NodeShippingEndToEndTests.waitFor("the second node's spool shipped") {
      try HTTPClient().get(nodes.second.url("/metrics"), key: nil).text.contains(
        "\nuptake_spool_events 0\n")
    }
    let rows = try shards.query(0, "SELECT count() FROM uptake.events")
    print("events in the cluster before merges: \(rows)")

    var paths: [String] = []
    for test in ["exclude", "include", "only"] {
      paths += ["/v1/updates?test=\(test)", "/v1/updates?test=\(test)&format=csv"]
      paths += (0..<5).map { "/v1/updates/update-\($0)?test=\(test)" }
    }
    paths.append("/v1/updates/update-1?from=\(Days().date(-9))&to=\(Days().date(-3))")
    for test in ["exclude", "include", "only"] {
      paths += ["/v1/adoption?test=\(test)", "/v1/adoption?test=\(test)&format=csv"]
      for groupBy in [
        "date,updateId,action", "action", "updateId,action", "appVersion", "date,appVersion",
        "platform,osVersion", "osVersion,appVersion,action", "action,date",
      ] {
        paths.append("/v1/report?groupBy=\(groupBy)&test=\(test)")
      }
      paths.append("/v1/report?groupBy=date,platform&granularity=hour&test=\(test)&format=csv")
    }
    paths.append("/v1/report?from=\(Days().date(-12))&to=\(Days().date(-12))&granularity=hour")
    for test in ["exclude", "include", "only"] {
      paths += (0..<4).map { "/v1/updates/update-\($0)/funnel?test=\(test)" }
    }
    paths.append("/v1/updates/update-2/funnel?format=csv&from=\(Days().date(-15))")
    // What the dashboard asks first: which app the read key names.
    paths.append("/v1/app")
    var funnels: [String] = []
    for path in paths {
      let fromCluster = try node.report(path)
      let fromOneBox = try oneBox.report(path)
      if path.contains("/funnel?test") { funnels.append(fromOneBox.text) }
      #expect(fromCluster.status == 200, "\(path): \(fromCluster.text)")
      #expect(fromCluster.text == fromOneBox.text, "\(path), seed \(seed)")
    }

    #expect(
      funnels.contains { !$0.contains(#""upgraded":0,"#) },
      "some funnel has upgrades to compare: \(funnels)")

    // Each CSV asked the groups its JSON had asked just before: the node
    // answered them from memory, and says so.
    let metrics = try HTTPClient().get(node.daemon.url("/metrics"), key: nil).text
    func counter(_ name: String) -> Int? {
      metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        .flatMap { Int($0.split(separator: " ")[1]) }
    }
    let remembered = try #require(counter("uptake_report_groups_remembered_total"))
    let asked = try #require(counter("uptake_report_groups_asked_total"))
    #expect(remembered > 0 && asked > 0, "remembered \(remembered), asked \(asked)")

    // A node serves the dashboard as one box does: the page that asks the
    // reports above.
    let page = try HTTPClient().get(node.daemon.url("/"), key: nil)
    #expect(page.status == 200)
    #expect(page.text == (try HTTPClient().get(oneBox.daemon.url("/"), key: nil).text))

    // The CLI's CSV export reads the same rows.
    for groupBy in ["date,updateId,action", "appVersion,platform,osVersion"] {
      let arguments = ["export", "--app", "default", "--group-by", groupBy, "--test", "include"]
      let fromCluster = try uptake(arguments + nodes.flags)
      let fromOneBox = try uptake(arguments + ["--db", oneBox.databasePath])
      #expect(fromCluster.status == 0, "\(fromCluster.standardError)")
      #expect(fromCluster.standardOutput.count > 100)
      #expect(fromCluster.standardOutput == fromOneBox.standardOutput, "export by \(groupBy)")
    }

    // With a configured latestVersion the upgrade must reach it.
    let document = TwoNodes.configuration(updateId: "update-1", latestVersion: "2.1.0")
    let putOnCluster = try uptake(
      ["updates", "put", "--app", "default", "-"] + nodes.flags, input: Data(document.utf8))
    let putOnOneBox = try uptake(
      ["updates", "put", "--app", "default", "-", "--db", oneBox.databasePath],
      input: Data(document.utf8))
    try #require(putOnCluster.status == 0 && putOnOneBox.status == 0)
    let withTarget = "/v1/updates/update-1/funnel?test=include"
    try NodeShippingEndToEndTests.waitFor("the configuration on the node") {
      try node.report("/v1/updates").text.contains(#""targetVersion":"2.1.0""#)
    }
    #expect(try node.report(withTarget).text == oneBox.report(withTarget).text, "seed \(seed)")

    // With a shard down a report is refused, never answered in part.
    shards.stop(1)
    let refused = try node.report("/v1/updates")
    #expect(refused.status == 503)
    #expect(refused.text.contains("the cluster cannot answer in full"), "\(refused.text)")
    try shards.start(1)
    #expect(try node.report("/v1/updates").text == oneBox.report("/v1/updates").text)
  }
}
