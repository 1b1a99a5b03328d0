import Foundation

/// A bare TCP connection to the daemon, for what URLSession cannot do: send
/// half a request and stall, hold a connection idle, or see it closed.
public final class RawConnection {
  public let descriptor: Int32

  /// Connects to 127.0.0.1:`port`; throws when the connection is refused.
  /// With `receiveBuffer`, the kernel takes at most about that many bytes
  /// that are not read yet: a slow reader.
  public init(port: Int, receiveBuffer: Int32? = nil) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw RawConnectionError.socket(errno) }
    if var bytes = receiveBuffer {
      setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let error = errno
      close(descriptor)
      throw RawConnectionError.connect(error)
    }
  }

  deinit { close(descriptor) }

  /// Sends `request`, byte for byte as written (control characters and all,
  /// which URLSession refuses to send), on a new connection and reads the
  /// answer; nil when none comes within `timeout`.
  public static func exchange(port: Int, _ request: String, timeout: TimeInterval = 10) throws
    -> (status: Int, head: String, body: String)?
  {
    let connection = try RawConnection(port: port)
    guard connection.send(request) else { return nil }
    return connection.readResponse(timeout: timeout)
  }

  /// Sends all of `text`; false when the peer has closed the connection.
  @discardableResult
  public func send(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if count <= 0 { return false }
      sent += count
    }
    return true
  }

  /// Reads until the peer closes the connection or `timeout` passes;
  /// returns what arrived and whether the peer closed it.
  public func readUntilClosed(timeout: TimeInterval) -> (text: String, closed: Bool) {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 { return (String(decoding: received, as: UTF8.self), false) }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
      received += buffer[0..<count]
    }
  }

  /// Reads one HTTP response with a Content-Length body; nil when the peer
  /// closes first or `timeout` passes.
  public func readResponse(timeout: TimeInterval) -> (status: Int, head: String, body: String)? {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while deadline.timeIntervalSinceNow > 0 {
      let text = String(decoding: received, as: UTF8.self)
      if let split = text.range(of: "\r\n\r\n") {
        let head = String(text[..<split.lowerBound])
        let length =
          head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
          .flatMap {
            Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
          }
          ?? 0
        let body = Array(text[split.upperBound...].utf8)
        if body.count >= length,
          let status = Int(head.split(separator: " ").dropFirst().first ?? "")
        {
          return (status, head, String(decoding: body, as: UTF8.self))
        }
      }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(deadline.timeIntervalSinceNow * 1000) + 1) > 0 else { continue }
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { return nil }
      received += buffer[0..<count]
    }
    return nil
  }
}

public enum RawConnectionError: Error {
  case socket(Int32)
  case connect(Int32)
}

/// Raises this process's soft limit on open descriptors to its hard limit,
/// for tests that hold many connections open at once.
public func raiseDescriptorLimit() {
  var limit = rlimit()
  if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }
}
