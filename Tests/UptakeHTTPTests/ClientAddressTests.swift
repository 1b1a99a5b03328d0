import Testing

@testable import UptakeHTTP

@Suite("Client addresses: IP addresses, CIDR blocks, and X-Forwarded-For behind trusted proxies")
struct ClientAddressTests {
  @Test(
    "addresses parse strictly and print in one canonical form",
    arguments: [
      ("203.0.113.7", "203.0.113.7"), ("::1", "::1"), ("2001:DB8:0:0::1", "2001:db8::1"),
      ("::ffff:10.0.0.1", "10.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("fe80::1:2", "fe80::1:2"),
    ])
  func parses(text: String, canonical: String) throws {
    #expect(try #require(IPAddress(text)).description == canonical)
  }

  @Test(
    "anything but a bare address is refused",
    arguments: [
      "", " 10.0.0.1", "10.0.0.1 ", "10.0.0", "10.0.0.256", "010.0.0.1", "10.0.0.1:80",
      "[::1]", "[::1]:80", "fe80::1%eth0", "unknown", "10.0.0.1\u{0}", "1.2.3.4\u{0}junk",
      "::1::2", "12345::", "1.2.3.4/32",
    ])
  func refuses(text: String) {
    #expect(IPAddress(text) == nil)
  }

  @Test("IPv4 written as IPv4-mapped IPv6 is the same address")
  func mapped() {
    #expect(IPAddress("::ffff:192.0.2.1") == IPAddress("192.0.2.1"))
    #expect(IPAddress("::ffff:c000:201") == IPAddress("192.0.2.1"))
    #expect(IPAddress("::192.0.2.1") != IPAddress("192.0.2.1"))
  }

  @Test("CIDR blocks: prefix lengths in range, host bits ignored, an address alone is itself")
  func blocks() throws {
    for (text, description) in [
      ("10.0.0.0/8", "10.0.0.0/8"), ("10.1.2.3/8", "10.1.2.3/8"), ("127.0.0.1", "127.0.0.1/32"),
      ("0.0.0.0/0", "0.0.0.0/0"), ("2001:db8::/32", "2001:db8::/32"), ("::1", "::1/128"),
      ("::/0", "::/0"),
    ] {
      #expect(CIDRBlock(text)?.description == description, "\(text)")
    }
    for text in [
      "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8",
      "/8", "10.0.0.0/0008", "proxy/8", "",
    ] {
      #expect(CIDRBlock(text) == nil, "\(text)")
    }
  }

  @Test("a block holds the addresses its prefix names, of its own family")
  func matching() throws {
    let cases: [(String, String, Bool)] = [
      ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false),
      ("10.1.2.3/8", "10.9.9.9", true), ("127.0.0.1/32", "127.0.0.1", true),
      ("127.0.0.1/32", "127.0.0.2", false), ("192.168.1.0/25", "192.168.1.127", true),
      ("192.168.1.0/25", "192.168.1.128", false), ("0.0.0.0/0", "8.8.8.8", true),
      ("0.0.0.0/0", "::1", false), ("::/0", "2001:db8::1", true),
      ("::/0", "10.0.0.1", true), ("2001:db8::/32", "2001:db8:ffff::1", true),
      ("2001:db8::/32", "2001:db9::1", false), ("fd00::/8", "fdff::1", true),
      ("2001:db8::/65", "2001:db8::7fff:ffff:ffff:ffff", true),
      ("2001:db8::/65", "2001:db8::8000:0:0:0", false), ("::1", "::1", true),
      ("10.0.0.1", "::ffff:10.0.0.1", true),
    ]
    for (block, address, inside) in cases {
      let parsedBlock = try #require(CIDRBlock(block))
      let parsedAddress = try #require(IPAddress(address))
      #expect(parsedBlock.contains(parsedAddress) == inside, "\(block) ∋ \(address)")
    }
  }

  @Test(
    "X-Forwarded-For: from a trusted peer, the right-most untrusted address; else the peer",
    arguments: [
      // No header, or an untrusted peer: the peer, whatever the header says.
      ("10.0.0.2", nil, "10.0.0.2"),
      ("198.51.100.1", "203.0.113.7", "198.51.100.1"),
      // One proxy: the address it appended.
      ("10.0.0.2", "203.0.113.7", "203.0.113.7"),
      ("10.0.0.2", " 203.0.113.7 ", "203.0.113.7"),
      // What the client wrote on the left is never read.
      ("10.0.0.2", "1.1.1.1, 203.0.113.7", "203.0.113.7"),
      ("10.0.0.2", "garbage, 203.0.113.7", "203.0.113.7"),
      // Trusted hops are walked past, from the right.
      ("10.0.0.2", "203.0.113.7, 10.0.0.9, 10.0.0.3", "203.0.113.7"),
      ("10.0.0.2", "192.0.2.5, 203.0.113.7, 10.0.0.3", "203.0.113.7"),
      ("10.0.0.2", "2001:db8::5, fd00::1", "2001:db8::5"),
      // Every address trusted: the left-most, the furthest hop known.
      ("10.0.0.2", "10.0.0.7, 10.0.0.3", "10.0.0.7"),
      // Malformed where it is read: the peer.
      ("10.0.0.2", "", "10.0.0.2"), ("10.0.0.2", "203.0.113.7,", "10.0.0.2"),
      ("10.0.0.2", "unknown", "10.0.0.2"), ("10.0.0.2", "203.0.113.7:4711", "10.0.0.2"),
      ("10.0.0.2", "203.0.113.7, 10.0.0.3 junk", "10.0.0.2"),
      ("10.0.0.2", "[2001:db8::5]", "10.0.0.2"),
    ] as [(String, String?, String)])
  func forwardedFor(peer: String, header: String?, client: String) throws {
    let proxies = TrustedProxies([
      try #require(CIDRBlock("10.0.0.0/8")), try #require(CIDRBlock("fd00::/8")),
    ])
    let found = proxies.clientAddress(peer: try #require(IPAddress(peer)), forwardedFor: header)
    #expect(found.description == client)
  }

  @Test("without trusted proxies the header is never read")
  func noneTrusted() throws {
    let peer = try #require(IPAddress("10.0.0.2"))
    #expect(TrustedProxies().clientAddress(peer: peer, forwardedFor: "203.0.113.7") == peer)
  }
}
