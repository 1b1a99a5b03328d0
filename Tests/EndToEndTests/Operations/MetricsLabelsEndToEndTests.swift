import Foundation
import Testing
import UptakeTestSupport

/// `/metrics` against a client that sends whatever method and path it
/// likes: every label value comes from a fixed set, so the exposition stays
/// valid and its size bounded however many odd requests arrive.
@Suite("uptaked /metrics under odd methods and paths", .timeLimit(.minutes(3)))
struct MetricsLabelsEndToEndTests {
  static let methods: Set = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "other"]
  static let routes: Set = [
    "/v1/events", "/v1/check", "/v1/lockout", "/v1/updates", "/v1/updates/{updateId}",
    "/v1/updates/{updateId}/funnel", "/v1/report", "/v1/adoption", "/v1/app", "/v1/store",
    "/healthz", "/readyz", "/metrics", "/", "/dashboard/{file}", "other",
  ]

  @Test(
    "methods that break the text, 200 distinct methods, unknown paths and files: strict, bounded")
  func labelsFromFixedSets() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let port = fixture.daemon.port
    let odd = [#"A"}x"#, #"B\x"#, "get", "MÉTHODE", #"C",route="x"#]
    let distinct = (0..<200).map { "M\($0)\(UUID().uuidString.prefix(8))" }
    for method in odd + distinct {
      let answer = try RawConnection.exchange(
        port: port, "\(method) /v1/updates HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      #expect(answer?.status == 405, "\(method)")
    }
    for _ in 0..<50 {
      let answer = try RawConnection.exchange(
        port: port, "GET /x/\(UUID().uuidString) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      #expect(answer?.status == 404)
    }
    for _ in 0..<20 {
      let answer = try RawConnection.exchange(
        port: port,
        "GET /dashboard/\(UUID().uuidString) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      #expect(answer?.status == 404)
    }
    _ = try HTTPClient().get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)

    let text = try HTTPClient().get(fixture.daemon.url("/metrics")).text
    let exposition: PrometheusExposition
    do {
      exposition = try PrometheusExposition(text)
    } catch {
      Issue.record("\(error)")
      return
    }
    let requests = "uptake_http_requests_total"
    let methods = exposition.values(of: "method", in: requests)
    #expect(methods.isSubset(of: Self.methods), "\(methods)")
    #expect(methods == ["GET", "other"])
    #expect(exposition.values(of: "route", in: requests).isSubset(of: Self.routes))
    #expect(
      exposition.values(of: "status", in: requests).allSatisfy {
        $0.wholeMatch(of: /[1-5]\d\d/) != nil
      })
    let odd405 = exposition.samples.first {
      $0.name == requests
        && $0.labels == ["method": "other", "route": "/v1/updates", "status": "405"]
    }
    #expect(odd405?.value == Double(odd.count + distinct.count), "every odd method in one series")
    let unknown = exposition.samples.first {
      $0.name == requests && $0.labels == ["method": "GET", "route": "other", "status": "404"]
    }
    #expect(unknown?.value == 50, "every unknown path in one series")
    let unknownFiles = exposition.samples.first {
      $0.name == requests
        && $0.labels == ["method": "GET", "route": "/dashboard/{file}", "status": "404"]
    }
    #expect(unknownFiles?.value == 20, "every unknown dashboard file in one series")
    #expect(text.utf8.count < 16 << 10, "a scrape stays small: \(text.utf8.count) bytes")
  }
}
