import Foundation

/// A resolved IPv4 or IPv6 address to bind, from `--listen HOST:PORT`.
struct SocketAddress {
  private var storage = sockaddr_storage()
  let isIPv6: Bool

  init?(host: String, port: UInt16) {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE
    var result: UnsafeMutablePointer<addrinfo>?
    let lookup = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
    guard lookup == 0, let first = result else { return nil }
    defer { freeaddrinfo(result) }
    // Prefer IPv4 for names like "localhost" that resolve to both.
    var chosen = first
    var candidate: UnsafeMutablePointer<addrinfo>? = first
    while let current = candidate {
      if current.pointee.ai_family == AF_INET { chosen = current; break }
      candidate = current.pointee.ai_next
    }
    isIPv6 = chosen.pointee.ai_family == AF_INET6
    withUnsafeMutableBytes(of: &storage) { destination in
      let source = UnsafeRawBufferPointer(
        start: chosen.pointee.ai_addr, count: Int(chosen.pointee.ai_addrlen))
      destination.copyMemory(from: source)
    }
  }

  mutating func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
    withUnsafePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
    }
  }
}
