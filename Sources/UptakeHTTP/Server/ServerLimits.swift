/// The HTTP server's limits: each a named number with the reason for it.
public struct ServerLimits: Sendable {
  /// The contract's cap on a request body as sent. Checked against
  /// Content-Length before the body is read, and again as a chunked body
  /// arrives, so no more than this is ever held for one request.
  public var maxBodyBytes = 1 << 20
  /// The contract's cap on a gzip body once decoded. Inflation stops at this
  /// many bytes (plus one 64 KiB step), so a bomb costs at most this much.
  public var maxDecodedBodyBytes = 8 << 20
  /// Idle connections are closed after this many seconds. libmicrohttpd's
  /// default is never, which lets a client that stops mid-request hold a
  /// connection forever; 30 s is longer than any mobile retry waits for an
  /// answer.
  public var connectionTimeoutSeconds = 30
  /// Connections open at once. Each costs one descriptor and a memory pool
  /// of `connectionMemoryBytes`, mapped lazily so an idle one touches a page
  /// or two: 8192 bounds the worst case near 256 MiB and is far above what
  /// two event-loop threads need to keep busy.
  public var connectionLimit = 8192
  /// Connections from one address at once; 0 means no limit. Off by default
  /// because many phones share one carrier NAT address.
  public var perIPConnectionLimit = 0
  /// Memory for one connection's headers and buffers. Bodies are copied out
  /// as they arrive, so this only bounds headers: 8 KiB holds a request head
  /// of about 7 KiB (Apache's limit for one header line is 8 KiB), beyond
  /// any real client's; larger heads get 431. libmicrohttpd zeroes this
  /// pool between the requests of a keep-alive connection, so a larger one
  /// costs every request (docs/performance.md).
  public var connectionMemoryBytes = 8 * 1024
  /// Seconds one report may read. A report's read transaction pins the
  /// write-ahead log, which cannot be rewound until it ends, so this bounds
  /// the log at about this many seconds of writes (WALCheckpointSchedule).
  /// The heaviest report over 90 days of 10M events takes a few seconds on
  /// one core; 30 s leaves room for a busy machine and refuses runaways.
  public var reportTimeLimitSeconds = 30.0
  /// The most rows (groups) a report answers; past it, 413. A client with
  /// the public ingest key chooses how many distinct values exist: a report
  /// of a million groups took minutes and gigabytes (issue 25). 100,000
  /// rows is about 20 MB of JSON, far past any chart, and a year of days
  /// by 50 updates by 4 actions still fits.
  public var maxReportRows = 100_000
  /// The most distinct installs a report holds in memory (a funnel's
  /// cohort, an update's installs by action); past it, 413. A funnel keeps
  /// 100 to 200 bytes an install, and anyone with the ingest key can post
  /// millions of installIds: a million is at most about 200 MB, two at once
  /// (one app's share of the report workers) still inside the shipped
  /// unit's 512 MiB.
  public var maxReportInstalls = 1_000_000
  /// Bytes of answers still being sent (to slow readers) past which reports
  /// are answered 503 until they drain (`AnswerBacklog`). Large answers
  /// wait in files, small ones in memory: 128 MiB of them in memory, at
  /// worst, still leaves room under the shipped unit's 512 MiB.
  public var maxAnswerBacklogBytes = 128 << 20
  /// Event-loop threads. One epoll thread collapsed under hundreds of
  /// keep-alive connections and two held them (docs/performance.md); slow
  /// reports run on worker threads, so two per machine is enough.
  public var threads = 2

  public init() {}
}
