import Foundation
import Testing
import UptakeTestSupport

/// uptaked behind the nginx of `deploy/README.md`, with the very
/// `location` block that document gives (read from it, so the two cannot
/// drift apart). The daemon itself refuses control bytes in the path, the
/// query and headers, except a raw NUL inside a header value: Debian 12's
/// libmicrohttpd (0.9.75) cuts the value there before any callback sees it,
/// so `Bearer KEY\0junk` reaches the daemon as `Bearer KEY` (a known issue
/// in ControlCharactersEndToEndTests). The proxy the deployment puts in
/// front refuses that request whole.
@Suite("uptaked behind the documented nginx proxy", .timeLimit(.minutes(3)))
struct BehindProxyEndToEndTests {
  @Test("a NUL in a header is refused by the proxy, other control bytes by the daemon, 400 both")
  func controlBytesThroughTheProxy() throws {
    let fixture = try DaemonFixture(arguments: ["--trusted-proxy", "127.0.0.1/32"])
    defer { fixture.tearDown() }
    let proxy = try DocumentedProxy(upstreamPort: fixture.daemon.port, in: fixture.scratch)
    defer { proxy.stop() }

    func get(_ authorization: String) throws -> Int? {
      try RawConnection.exchange(
        port: proxy.port,
        "GET /v1/updates HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
          + "Authorization: \(authorization)\r\n\r\n")?.status
    }
    let key = fixture.readKey
    #expect(try get("Bearer \(key)") == 200, "a clean request passes the proxy")
    #expect(try get("Bearer \(key)\u{0}junk") == 400, "NUL: the proxy refuses it")
    #expect(try get("Bearer \(key)\u{1}junk") == 400, "\\x01: the daemon refuses it")
    #expect(try get("Bearer \(key)\u{7F}") == 400, "DEL: the daemon refuses it")
    #expect(
      try RawConnection.exchange(
        port: proxy.port,
        "GET /v1/updates/a%00b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
          + "Authorization: Bearer \(key)\r\n\r\n")?.status == 400, "a NUL in the path")

  }
}

/// nginx on a free port of 127.0.0.1 with deploy/README.md's `location`
/// block, proxying to the daemon, run as a child until `stop`.
private final class DocumentedProxy {
  let port: Int
  private let process = Process()

  init(upstreamPort: Int, in scratch: ScratchDirectory) throws {
    let nginx = try #require(
      ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
      },
      "nginx is missing: tools/install-deps installs it")
    let readme = try String(contentsOf: packageFile("deploy/README.md"), encoding: .utf8)
    let fence = try #require(readme.range(of: "```nginx\n"), "deploy/README.md has an nginx block")
    let end = try #require(readme[fence.upperBound...].range(of: "```"))
    let location = readme[fence.upperBound..<end.lowerBound]
      .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(upstreamPort)")
    port = try freePort()
    let directory = scratch.path("nginx")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
      .map { "  \($0)_temp_path \(directory)/\($0);" }.joined(separator: "\n")
    let configuration = """
      daemon off;
      master_process off;
      pid \(directory)/nginx.pid;
      error_log \(directory)/error.log;
      events {}
      http {
        access_log off;
      \(temporary)
        server {
          listen 127.0.0.1:\(port);
      \(location)
        }
      }
      """
    let configurationPath = "\(directory)/nginx.conf"
    try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
    process.executableURL = URL(fileURLWithPath: nginx)
    process.arguments = ["-e", "\(directory)/error.log", "-p", directory, "-c", configurationPath]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    for _ in 0..<100 {
      if (try? RawConnection(port: port)) != nil { return }
      Thread.sleep(forTimeInterval: 0.05)
    }
    stop()
    let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
    Issue.record("nginx did not start: \(log)")
    throw CancellationError()
  }

  /// SIGKILL: nginx run without its master process does not stop on
  /// SIGTERM, and as one process it leaves no worker behind.
  func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}

/// A port of 127.0.0.1 nothing listens on now (the kernel's pick for a
/// socket bound to port 0, then closed).
private func freePort() throws -> Int {
  let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(descriptor) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
    }
  }
  try #require(bound, "a free port")
  return Int(UInt16(bigEndian: address.sin_port))
}
