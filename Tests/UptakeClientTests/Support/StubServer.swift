import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One request as the stub received it.
struct StubRequest: Sendable {
  let method: String
  /// The path with its query.
  let target: String
  /// Header names in lower case.
  let headers: [String: String]
  let body: Data
  let received: Date
}

/// What the stub does with a request.
enum StubReply: Sendable {
  case respond(status: Int, headers: [String: String] = [:], body: String = "")
  /// Reads the request and never answers, like a server that hangs, until
  /// the client gives up (noted in `givenUp`) or the stub stops.
  case hang
  /// Closes the connection without an answer.
  case close
}

/// A tiny HTTP/1.1 server on 127.0.0.1, port 0, one connection at a time:
/// it records every request and answers what the test's handler says, so a
/// test can count tries, answer 429 with Retry-After, or forward to the real
/// uptaked and act between the server's answer and the client's.
final class StubServer: @unchecked Sendable {
  let port: Int
  private let listener: Int32
  private let lock = NSLock()
  private var received: [StubRequest] = []
  private var closedByClient: [Date] = []
  private let stopped = DispatchSemaphore(value: 0)
  private let stopping = DispatchSemaphore(value: 0)

  /// `handler` gets each request and its zero-based number.
  init(handler: @escaping @Sendable (StubRequest, Int) -> StubReply) throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw StubError.socket(errno) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    self.listener = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread { [self] in
      serve(handler)
      stopped.signal()
    }
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Every request so far, in order.
  var requests: [StubRequest] { lock.withLock { received } }

  /// When clients closed connections the stub left hanging. Seen from the
  /// stub's own thread, so a busy test process does not blur the times.
  var givenUp: [Date] { lock.withLock { closedByClient } }

  /// Stops accepting and waits for the serving thread to end.
  func stop() {
    stopping.signal()
    // shutdown wakes the accept; the descriptor is closed only after the
    // serving thread is done with it, so it cannot be handed to another
    // socket while that thread still accepts on its number.
    shutdown(listener, Int32(SHUT_RDWR))
    stopped.wait()
    close(listener)
  }

  private func serve(_ handler: @Sendable (StubRequest, Int) -> StubReply) {
    while true {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      defer { close(connection) }
      guard let request = read(connection) else { continue }
      let number = lock.withLock {
        received.append(request)
        return received.count - 1
      }
      switch handler(request, number) {
      case .respond(let status, let headers, let body):
        var head = "HTTP/1.1 \(status) Stub\r\nConnection: close\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        write(connection, Data((head + "\r\n" + body).utf8))
      case .hang:
        waitForClientToGiveUp(connection)
      case .close:
        break
      }
    }
  }

  private func waitForClientToGiveUp(_ connection: Int32) {
    var byte: UInt8 = 0
    while stopping.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
      var event = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
      guard poll(&event, 1, 0) > 0 else { continue }
      if recv(connection, &byte, 1, Int32(MSG_DONTWAIT)) <= 0 {
        lock.withLock { closedByClient.append(Date()) }
        return
      }
    }
    // Let stop() go on past the next waits too.
    stopping.signal()
  }

  /// Reads one request: its head, then as many body bytes as
  /// Content-Length says.
  private func read(_ connection: Int32) -> StubRequest? {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    let separator = Data("\r\n\r\n".utf8)
    var headEnd: Range<Data.Index>?
    var headers: [String: String] = [:]
    var requestLine: [Substring] = []
    var continued = false
    while true {
      if headEnd == nil, let end = data.range(of: separator) {
        headEnd = end
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self)
          .components(separatedBy: "\r\n")
        requestLine = lines.first?.split(separator: " ") ?? []
        for line in lines.dropFirst() {
          guard let colon = line.firstIndex(of: ":") else { continue }
          headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
            .trimmingCharacters(in: .whitespaces)
        }
      }
      if let headEnd {
        if headers["expect"]?.lowercased() == "100-continue" && !continued {
          write(connection, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
          continued = true
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        if data.count - headEnd.upperBound >= length {
          guard requestLine.count >= 2 else { return nil }
          return StubRequest(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
            body: Data(data[headEnd.upperBound..<(headEnd.upperBound + length)]),
            received: Date())
        }
      }
      let count = recv(connection, &buffer, buffer.count, 0)
      guard count > 0 else { return nil }
      data.append(contentsOf: buffer[0..<count])
    }
  }

  private func write(_ connection: Int32, _ data: Data) {
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = send(
          connection, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        guard sent > 0 else { return }
        offset += sent
      }
    }
  }
}

enum StubError: Error {
  case socket(Int32)
}
