import Foundation
import Testing
import UptakeTestSupport

/// A thousand clients that connect and never finish a request must not slow
/// down the ones that do: libmicrohttpd's thread pool serves each ready
/// connection while the stalled ones wait for their timeout.
@Suite("uptaked beside 1,000 stalled connections", .timeLimit(.minutes(3)))
struct ManyConnectionsEndToEndTests {
  static let stalled = 1000
  static let requests = 100

  @Test("100 sequential requests each answered in under a second beside 1,000 stalled clients")
  func normalClientsStayFast() throws {
    raiseDescriptorLimit()
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    var held: [RawConnection] = []
    for index in 0..<Self.stalled {
      let connection = try RawConnection(port: fixture.daemon.port)
      // Half send part of a head and stop; half send nothing at all.
      if index.isMultiple(of: 2) {
        connection.send("POST /v1/events HTTP/1.1\r\nHost: uptake\r\nContent-Type: applic")
      }
      held.append(connection)
    }
    let client = HTTPClient(timeout: 10)
    var latencies: [Double] = []

    for number in 0..<Self.requests {
      let started = Date()
      // Every tenth request comes on a new connection, so accepting new
      // clients is measured too, not only a warm keep-alive one.
      let status: Int?
      if number.isMultiple(of: 10) {
        status = try answerToHealthCheck(port: fixture.daemon.port, timeout: 5)
      } else {
        status =
          try client.postJSON(
            fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
            batchJSON([eventJSON(id: "normal-\(number)")])
          ).status
      }
      latencies.append(Date().timeIntervalSince(started))
      #expect(status == 200, "request \(number)")
    }

    let sorted = latencies.sorted()
    print(
      "beside \(held.count) stalled connections: \(Self.requests) requests, median"
        + " \(milliseconds(sorted[sorted.count / 2])) ms, p99 \(milliseconds(sorted[98])) ms,"
        + " max \(milliseconds(sorted.last!)) ms")
    #expect(sorted.last! < 1, "every request under a second")
    // The stalled connections are still open: the daemon did not shed them
    // to serve the others.
    let probe = held[1]
    probe.send("GET /healthz HTTP/1.1\r\nHost: uptake\r\nConnection: close\r\n\r\n")
    #expect(probe.readResponse(timeout: 5)?.status == 200)
  }
}

private func milliseconds(_ seconds: Double) -> String {
  String(format: "%.1f", seconds * 1000)
}
