import CMicroHTTPD
import Foundation
import Synchronization
import UptakeCore

/// The libmicrohttpd adapter: turns its callbacks into `Request` values for
/// the router and sends back `Response` values. Kept thin on purpose: every
/// decision is the router's or a handler's.
public final class HTTPServer: @unchecked Sendable {
  public enum StartError: Error, CustomStringConvertible {
    case badListenAddress(String)
    case cannotStart(String)

    public var description: String {
      switch self {
      case .badListenAddress(let address): "cannot use listen address \"\(address)\": use HOST:PORT"
      case .cannotStart(let address): "cannot listen on \(address) (in use, or not allowed)"
      }
    }
  }

  /// Not private: the OpenAPI test reads the served routes through it.
  let router: Router
  private let limits: ServerLimits
  private var daemon: OpaquePointer?
  private let inFlight = Atomic<Int>(0)
  private let shuttingDown = Atomic<Bool>(false)
  private let logger: Logger
  private let keyLimiter: RateLimiter?
  private let addressLimiter: RateLimiter?
  private let trustedProxies: TrustedProxies
  /// Where answers too large to hold for a slow reader are written
  /// (`AnswerBacklog`): the database's directory, on the disk the operator
  /// gave the daemon. Nil keeps every answer in memory.
  private let spillDirectory: String?
  /// Called once per finished request, from an event-loop thread.
  let onCompleted: (@Sendable (CompletedRequest) -> Void)?

  /// The host and port actually bound, once started.
  public private(set) var boundHost = ""
  public private(set) var boundPort: UInt16 = 0

  public init(
    router: Router, limits: ServerLimits = ServerLimits(), rateLimits: RateLimits = RateLimits(),
    trustedProxies: TrustedProxies = TrustedProxies(), spillDirectory: String? = nil,
    logger: Logger = Logger(), onCompleted: (@Sendable (CompletedRequest) -> Void)? = nil
  ) {
    self.router = router
    self.limits = limits
    self.logger = logger
    keyLimiter = rateLimits.perKey.map(RateLimiter.init(rate:))
    addressLimiter = rateLimits.perAddress.map(RateLimiter.init(rate:))
    self.trustedProxies = trustedProxies
    self.spillDirectory = spillDirectory
    self.onCompleted = onCompleted
  }

  /// Binds `HOST:PORT` (port 0 picks a free port) and starts serving.
  public func start(listen: String) throws(StartError) {
    guard let colon = listen.lastIndex(of: ":"),
      let port = UInt16(listen[listen.index(after: colon)...])
    else { throw .badListenAddress(listen) }
    var host = String(listen[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard var address = SocketAddress(host: host, port: port) else {
      throw .badListenAddress(listen)
    }

    let context = Unmanaged.passUnretained(self).toOpaque()
    var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue)
    flags |= UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue) | UInt32(MHD_USE_ERROR_LOG.rawValue)
    if address.isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
    let started = address.withSockaddr { sockaddr -> OpaquePointer? in
      var options: [MHD_OptionItem] = [
        // First, so that libmicrohttpd logs nothing through its own logger.
        MHD_OptionItem(
          option: MHD_OPTION.EXTERNAL_LOGGER,
          value: unsafeBitCast(libraryLogCallback, to: Int.self), ptr_value: context),
        MHD_OptionItem(
          option: MHD_OPTION.SOCK_ADDR, value: 0,
          ptr_value: UnsafeMutableRawPointer(mutating: sockaddr)),
        // One thread is libmicrohttpd's own polling thread, not a pool of one
        // (which it would refuse with a warning).
        MHD_OptionItem(
          option: MHD_OPTION.THREAD_POOL_SIZE, value: limits.threads > 1 ? limits.threads : 0,
          ptr_value: nil),
        MHD_OptionItem(
          option: MHD_OPTION.CONNECTION_TIMEOUT, value: limits.connectionTimeoutSeconds,
          ptr_value: nil),
        MHD_OptionItem(
          option: MHD_OPTION.CONNECTION_LIMIT, value: limits.connectionLimit, ptr_value: nil),
        MHD_OptionItem(
          option: MHD_OPTION.PER_IP_CONNECTION_LIMIT, value: limits.perIPConnectionLimit,
          ptr_value: nil),
        MHD_OptionItem(
          option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: limits.connectionMemoryBytes,
          ptr_value: nil),
        MHD_OptionItem(
          option: MHD_OPTION.UNESCAPE_CALLBACK,
          value: unsafeBitCast(keepEscapesCallback, to: Int.self), ptr_value: nil),
        MHD_OptionItem(
          option: MHD_OPTION.NOTIFY_COMPLETED,
          value: unsafeBitCast(requestCompletedCallback, to: Int.self), ptr_value: context),
        MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil),
      ]
      return uptake_mhd_start(flags, port, accessHandlerCallback, context, &options)
    }
    guard let started else { throw .cannotStart(listen) }
    daemon = started
    boundHost = host
    boundPort = uptake_mhd_bound_port(started)
  }

  /// Answers every request that arrives from now on with 503 and
  /// `Connection: close`; those in flight finish. Connections are still
  /// accepted, so a client that connects now hears 503 rather than a reset.
  public func refuseNewRequests() {
    shuttingDown.store(true, ordering: .releasing)
  }

  /// Stops accepting connections and closes the listening socket, so a
  /// client that connects from now on is refused at once. Left open, the
  /// socket would let the kernel complete handshakes and queue requests that
  /// no one reads, and every one of them would be reset at exit.
  public func stopListening() {
    guard let daemon else { return }
    let listener = MHD_quiesce_daemon(daemon)
    if listener >= 0 { close(listener) }
  }

  /// True once `quiesce` was called; handlers may refuse new work.
  public var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) }

  /// Requests received and not yet answered and sent.
  public var requestsInFlight: Int { inFlight.load(ordering: .acquiring) }

  /// Waits until every request in flight is answered, or the deadline passes.
  /// It waits for a quiet moment too: a keep-alive client may be sending its
  /// next request right now, and that one should get its 503 with
  /// `Connection: close` rather than a reset connection.
  public func drain(timeoutSeconds: Double, quietSeconds: Double = 0.3) {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    var quietSince = Date()
    while Date() < deadline {
      if requestsInFlight > 0 {
        quietSince = Date()
      } else if Date().timeIntervalSince(quietSince) >= quietSeconds {
        return
      }
      usleep(10_000)
    }
  }

  /// Closes every connection and stops the event-loop threads.
  public func stop() {
    if let daemon { MHD_stop_daemon(daemon) }
    daemon = nil
  }

  // MARK: - libmicrohttpd callbacks

  fileprivate func access(
    _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
    upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
    exchangeSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    guard let slot = exchangeSlot.pointee else {
      // First call: only the head has arrived. The path came with its
      // escapes left in (`keepEscapesCallback`) and is decoded here.
      let exchange = Exchange()
      exchangeSlot.pointee = Unmanaged.passRetained(exchange).toOpaque()
      inFlight.wrappingAdd(1, ordering: .relaxed)
      return begin(
        exchange, connection, url: PercentDecoding.decode(url, count: strlen(url)),
        method: String(cString: method))
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeUnretainedValue()
    if uploadSize.pointee > 0 {
      let count = uploadSize.pointee
      uploadSize.pointee = 0
      return receive(upload, count: count, exchange)
    }
    return respond(connection, exchange)
  }

  /// Decides a request from its head: refused (while shutting down, by
  /// the router, over the body limit or a rate), or accepted for its route.
  private func begin(
    _ exchange: Exchange, _ connection: OpaquePointer, url: String, method: String
  ) -> MHD_Result {
    let head = RequestHead(
      method: method, path: url, query: Self.values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
      lowercasedHeaders: Self.values(connection, MHD_ValueKind.HEADER_KIND, lowercasingKeys: true)
    )
    exchange.method = MethodLabel.of(method)
    if isShuttingDown {
      exchange.label = router.pattern(of: url)
      return refuse(
        .unavailable("shutting down", retryAfterSeconds: 5), head, connection, exchange)
    }
    switch router.decide(head) {
    case .refuse(let error):
      exchange.label = router.pattern(of: url)
      return refuse(error, head, connection, exchange)
    case .accept(let route, let request):
      // The path is matched once: an accepted request is labelled by its
      // route, a refused one looks its pattern up.
      exchange.label = route.pattern
      if let length = head.contentLength, length > limits.maxBodyBytes {
        return refuse(Self.bodyTooLarge(limits), head, connection, exchange)
      }
      if let refusal = rateLimitRefusal(route, request, connection) {
        return refuse(refusal, head, connection, exchange)
      }
      exchange.route = route
      exchange.request = request
      return MHD_Result.YES
    }
  }

  /// Takes `count` more bytes of the body, up to the limit.
  private func receive(_ upload: UnsafePointer<CChar>?, count: Int, _ exchange: Exchange)
    -> MHD_Result
  {
    if exchange.responded { return MHD_Result.YES }
    if exchange.refusal != nil {
      // libmicrohttpd cannot answer before the upload ends, so the rest
      // is read and dropped; a client that keeps sending far past the
      // limit is cut off instead.
      exchange.discardedBytes += count
      return exchange.discardedBytes > Self.maxDiscardedBytes ? MHD_Result.NO : MHD_Result.YES
    }
    guard exchange.body.count + count <= limits.maxBodyBytes else {
      exchange.refusal = Self.bodyTooLarge(limits)
      exchange.body = []
      return MHD_Result.YES
    }
    if let upload {
      upload.withMemoryRebound(to: UInt8.self, capacity: count) {
        exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
      }
    }
    return MHD_Result.YES
  }

  /// Once the body is in: the refusal, the handler's response, or a
  /// deferred handler's once it is ready.
  private func respond(_ connection: OpaquePointer, _ exchange: Exchange) -> MHD_Result {
    if exchange.responded { return MHD_Result.YES }
    if let refusal = exchange.refusal {
      return send(refusal.response, connection, exchange)
    }
    if exchange.isWaiting {
      guard let response = exchange.takeDeferredResponse() else { return MHD_Result.YES }
      return send(response, connection, exchange)
    }
    guard let route = exchange.route, var request = exchange.request else {
      return send(APIError.internalError.response, connection, exchange)
    }
    request.body = exchange.body
    exchange.body = []
    switch route.handler(request) {
    case .respond(let response):
      return send(response, connection, exchange)
    case .deferred(let start):
      exchange.isWaiting = true
      // Suspend before starting the work, so the resume that follows its
      // completion always finds the connection suspended.
      MHD_suspend_connection(connection)
      let handle = ConnectionHandle(connection: connection)
      start { response in
        exchange.setDeferredResponse(response)
        MHD_resume_connection(handle.connection)
      }
      return MHD_Result.YES
    }
  }

  /// libmicrohttpd's own messages (a connection refused past a limit,
  /// headers too large, a failed bind) as key=value lines like ours.
  fileprivate func libraryMessage(_ message: String) {
    logger.warning(
      "libmicrohttpd", ["message": message.trimmingCharacters(in: .whitespacesAndNewlines)])
  }

  fileprivate func completed(_ exchangeSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
    guard let slot = exchangeSlot?.pointee else { return }
    exchangeSlot?.pointee = nil
    let exchange = Unmanaged<Exchange>.fromOpaque(slot).takeRetainedValue()
    inFlight.wrappingSubtract(1, ordering: .relaxed)
    onCompleted?(
      CompletedRequest(
        method: exchange.method, route: exchange.label ?? "other",
        status: exchange.status,
        seconds: Double(DispatchTime.now().uptimeNanoseconds &- exchange.startedNs) / 1e9))
  }

  /// 429 when the request's key or address is over its rate. Decided from
  /// the head, before the body is read, so a limited client costs little;
  /// routes without a key (probes, metrics) are never limited.
  private func rateLimitRefusal(_ route: Route, _ request: Request, _ connection: OpaquePointer)
    -> APIError?
  {
    guard route.access != .open else { return nil }
    if let keyLimiter, let app = request.app,
      let wait = keyLimiter.take("\(app.appNo)/\(route.access)")
    {
      return .rateLimited(retryAfterSeconds: wait)
    }
    if let addressLimiter, let address = clientAddress(connection, request.head),
      let wait = addressLimiter.take(address)
    {
      return .rateLimited(retryAfterSeconds: wait)
    }
    return nil
  }

  /// The address a request counts against: the TCP peer's, or, when the
  /// peer is a trusted proxy, the client its X-Forwarded-For names.
  private func clientAddress(_ connection: OpaquePointer, _ head: RequestHead) -> String? {
    guard let peerText = Self.peerAddress(connection) else { return nil }
    guard !trustedProxies.isEmpty, let peer = IPAddress(peerText) else { return peerText }
    return trustedProxies.clientAddress(peer: peer, forwardedFor: head.header("x-forwarded-for"))
      .description
  }

  private static func peerAddress(_ connection: OpaquePointer) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    guard uptake_mhd_client_address(connection, &buffer, buffer.count) != 0 else { return nil }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  private func send(_ response: Response, _ connection: OpaquePointer, _ exchange: Exchange)
    -> MHD_Result
  {
    exchange.responded = true
    exchange.status = response.status
    guard
      let mhdResponse = AnswerBacklog.response(response.body, spillDirectory: spillDirectory)
    else { return MHD_Result.NO }
    defer { MHD_destroy_response(mhdResponse) }
    for (name, value) in response.headers {
      MHD_add_response_header(mhdResponse, name, value)
    }
    if isShuttingDown { MHD_add_response_header(mhdResponse, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
  }

  /// Refuses a request decided from its head alone. The answer waits until
  /// the body is read and dropped: answered at once, the connection would be
  /// closed with the body unread, the kernel would reset it, and a client
  /// still sending gets "broken pipe" instead of its 401 or 413 — which the
  /// client library retries as a network failure. Only a client that waits
  /// for `100 Continue`, or announces a body past what is worth reading, is
  /// answered at once.
  private func refuse(
    _ error: APIError, _ head: RequestHead, _ connection: OpaquePointer, _ exchange: Exchange
  ) -> MHD_Result {
    let announced = head.contentLength ?? 0
    let waitsToSend = head.header("expect")?.lowercased() == "100-continue"
    if waitsToSend || announced > Self.maxDiscardedBytes {
      return send(error.response, connection, exchange)
    }
    exchange.refusal = error
    return MHD_Result.YES
  }

  /// How much of a refused body is read and dropped so the client can get
  /// its answer, before the connection is cut instead.
  static let maxDiscardedBytes = 16 << 20

  private static func bodyTooLarge(_ limits: ServerLimits) -> APIError {
    .payloadTooLarge("body over \(limits.maxBodyBytes) bytes")
  }

  /// Collects one kind of connection values: headers, their names
  /// lower-cased as they are copied, or query arguments, their escapes
  /// decoded. Read with their lengths, so a NUL inside one stays in it.
  private static func values(
    _ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercasingKeys: Bool = false
  ) -> [String: String] {
    var collected = CollectedValues(
      lowercasingKeys: lowercasingKeys, decodingEscapes: kind == MHD_ValueKind.GET_ARGUMENT_KIND)
    // A request carries a handful of headers; grown from empty, the
    // dictionary was rehashed at every doubling.
    if lowercasingKeys { collected.values.reserveCapacity(8) }
    withUnsafeMutablePointer(to: &collected) { pointer in
      _ = MHD_get_connection_values_n(
        connection, kind,
        { context, _, key, keySize, value, valueSize in
          guard let context, let key else { return MHD_Result.YES }
          let collected = context.assumingMemoryBound(to: CollectedValues.self)
          collected.pointee.add(key, keySize, value, valueSize)
          return MHD_Result.YES
        }, pointer)
    }
    return collected.values
  }
}

/// One request's state across libmicrohttpd's calls, kept in its `con_cls`
/// and released in the completion callback.
private final class Exchange: @unchecked Sendable {
  /// The method as metrics and logs name it: from a fixed set.
  var method = MethodLabel.other
  let startedNs = DispatchTime.now().uptimeNanoseconds
  var route: Route?
  /// The matching route's pattern, for metrics and logs; nil for a path no
  /// route matches. Refused requests (401, 413, 429) are labelled too.
  var label: String?
  var request: Request?
  var body: [UInt8] = []
  /// Set when the request is refused part-way through its body; sent once
  /// the upload ends.
  var refusal: APIError?
  var discardedBytes = 0
  var responded = false
  var isWaiting = false
  var status = 0
  /// Set by the thread that answers a deferred request, taken by the event
  /// loop once resumed. A `Mutex` lives inside the exchange; an `NSLock`
  /// was one more object to allocate and free per request.
  private let deferredResponse = Mutex<Response?>(nil)

  func setDeferredResponse(_ response: Response) {
    deferredResponse.withLock { $0 = response }
  }

  func takeDeferredResponse() -> Response? {
    deferredResponse.withLock { response in
      defer { response = nil }
      return response
    }
  }
}

/// Header or query values as `MHD_get_connection_values_n` hands them over.
private struct CollectedValues {
  let lowercasingKeys: Bool
  /// Query arguments arrive with their escapes (`keepEscapesCallback`).
  let decodingEscapes: Bool
  var values: [String: String] = [:]

  init(lowercasingKeys: Bool, decodingEscapes: Bool) {
    self.lowercasingKeys = lowercasingKeys
    self.decodingEscapes = decodingEscapes
  }

  mutating func add(
    _ key: UnsafePointer<CChar>, _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
  ) {
    let name =
      lowercasingKeys
      ? HeaderBytes.lowercasedName(key, count: keySize) : text(key, count: keySize)
    let content = value.map { text($0, count: valueSize) } ?? ""
    // The last value wins, but X-Forwarded-For is a list that proxies may
    // extend with a line of their own: its lines are one list, in order.
    if let earlier = values.updateValue(content, forKey: name), name == "x-forwarded-for" {
      values[name] = earlier + ", " + content
    }
  }

  private func text(_ pointer: UnsafePointer<CChar>, count: Int) -> String {
    if decodingEscapes { return PercentDecoding.decode(pointer, count: count) }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
      String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
    }
  }
}

/// A connection pointer carried to the thread that resumes it; libmicrohttpd
/// allows MHD_resume_connection from any thread.
private struct ConnectionHandle: @unchecked Sendable {
  let connection: OpaquePointer
}

private let accessHandlerCallback: MHD_AccessHandlerCallback = {
  context, connection, url, method, _, upload, uploadSize, exchangeSlot in
  guard let context, let connection, let url, let method, let uploadSize, let exchangeSlot else {
    return MHD_Result.NO
  }
  let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
  return server.access(
    connection, url: url, method: method, upload: upload, uploadSize: uploadSize,
    exchangeSlot: exchangeSlot)
}

/// Leaves `%HH` escapes in the path and query arguments as sent (returning
/// the length unchanged, as libmicrohttpd asks): its own decoder writes a
/// C string, cut at a decoded NUL. `PercentDecoding` decodes them instead.
private let keepEscapesCallback:
  @convention(c) (
    UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?
  ) -> Int = { _, _, text in text.map { strlen($0) } ?? 0 }

private let libraryLogCallback: MHD_LogCallback = { context, format, arguments in
  guard let context, let format, let arguments else { return }
  var buffer = [CChar](repeating: 0, count: 1024)
  _ = vsnprintf(&buffer, buffer.count, format, arguments)
  Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().libraryMessage(
    buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
}

private let requestCompletedCallback: MHD_RequestCompletedCallback = {
  context, _, exchangeSlot, _ in
  guard let context else { return }
  Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed(exchangeSlot)
}
