/// The HTTP server's limits: each a named number with the reason for it.
public struct ServerLimits: Sendable {
  /// The contract's cap on a request body as sent.
  public var maxBodyBytes = 1 << 20
  /// Idle connections are closed after this many seconds. libmicrohttpd's
  /// default is never, which lets a client that stops mid-request hold a
  /// connection forever; 30 s is longer than any mobile retry waits for an
  /// answer.
  public var connectionTimeoutSeconds = 30
  /// Connections open at once. Each costs one descriptor and at most
  /// `connectionMemoryBytes`; 8192 stays inside a 64 MiB budget.
  public var connectionLimit = 8192
  /// Connections from one address at once; 0 means no limit. Off by default
  /// because many phones share one carrier NAT address.
  public var perIPConnectionLimit = 0
  /// Memory for one connection's headers and buffers. Bodies are copied out
  /// as they arrive, so this only bounds headers: 8 KiB holds a request head
  /// of about 7 KiB (Apache's limit for one header line is 8 KiB), beyond
  /// any real client's; larger heads get 431. libmicrohttpd zeroes this
  /// pool between the requests of a keep-alive connection, which at 32 KiB
  /// cost ~5 µs a request, 11 % of single-event ingest's instructions.
  public var connectionMemoryBytes = 8 * 1024
  /// Event-loop threads. Two per core: one epoll thread collapsed under a
  /// few hundred keep-alive connections, a small pool held them.
  public var threads = 2

  public init() {}
}
