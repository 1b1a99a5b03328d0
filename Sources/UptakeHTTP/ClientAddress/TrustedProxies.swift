/// The proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`).
/// Anyone can write the header, so it is read only from a peer in these
/// blocks, and only as far as it was written by them: each trusted proxy
/// appends the address it received the request from, so walking from the
/// right past trusted addresses, the first other one is the client. What
/// a client wrote to the left of it is never read.
public struct TrustedProxies: Sendable {
  public var blocks: [CIDRBlock]

  public init(_ blocks: [CIDRBlock] = []) {
    self.blocks = blocks
  }

  public var isEmpty: Bool { blocks.isEmpty }

  public func trusts(_ address: IPAddress) -> Bool {
    blocks.contains { $0.contains(address) }
  }

  /// The address a request is from: the peer's, unless the peer is
  /// trusted and `forwardedFor` names another. Walking the header from the
  /// right, trusted addresses are skipped and the first untrusted one is
  /// the client; when every one is trusted, the left-most. An entry on the
  /// way that is not a bare address (empty, a name, a port) stops the walk
  /// and the peer is used: the header is malformed where it matters, and
  /// the peer is an address no client chose.
  public func clientAddress(peer: IPAddress, forwardedFor: String?) -> IPAddress {
    guard let forwardedFor, trusts(peer) else { return peer }
    var client = peer
    for entry in forwardedFor.split(separator: ",", omittingEmptySubsequences: false).reversed() {
      guard let address = IPAddress(HeaderBytes.trimmed(entry)) else { return peer }
      client = address
      if !trusts(address) { break }
    }
    return client
  }
}
