import Foundation

/// Debian's clickhouse-server, run as a cluster of one-replica shards from
/// scratch directories: each server a plain process with its own
/// config.xml (data and temporary paths, HTTP, TCP and interserver ports
/// picked free), and every config naming all of them as the cluster
/// `uptake` in `remote_servers`. Each idles at about 80 MB.
public final class ClickHouseShards: @unchecked Sendable {
  public static let executable = "/usr/sbin/clickhouse-server"
  public static let clusterName = "uptake"

  public struct Shard: Sendable {
    public let httpPort: Int
    public let tcpPort: Int
    public let interserverPort: Int
    public let directory: URL
    public var url: URL { URL(string: "http://127.0.0.1:\(httpPort)")! }
  }

  public private(set) var shards: [Shard]
  private let scratch: ScratchDirectory
  private let client = HTTPClient(timeout: 30)
  /// The running servers' process ids, by shard.
  private var pids: [pid_t?]

  /// Starts `count` servers and waits until each answers `SELECT 1`.
  public init(count: Int = 2) throws {
    guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
      throw Problem("\(Self.executable) is missing: install clickhouse-server (tools/install-deps)")
    }
    scratch = try ScratchDirectory()
    shards = try Self.layout(count, in: scratch)
    pids = Array(repeating: nil, count: count)
    try Self.usersXML.write(to: scratch.appending("users.xml"), atomically: true, encoding: .utf8)
    // A port picked free may be taken by another test before the server
    // binds it: then every shard starts again on new ones.
    for attempt in 1... {
      do {
        for index in shards.indices {
          try configXML(for: shards[index]).write(
            to: shards[index].directory.appending(path: "config.xml"), atomically: true,
            encoding: .utf8)
        }
        for index in shards.indices { try start(index) }
        return
      } catch let problem as Problem
        where attempt < 5 && problem.description.contains("Address already in use")
      {
        for index in pids.indices { stop(index) }
        shards = try Self.layout(count, in: scratch)
      } catch {
        stopAll()
        throw error
      }
    }
  }

  /// `count` shards on ports free now, each with a directory of its own.
  private static func layout(_ count: Int, in scratch: ScratchDirectory) throws -> [Shard] {
    var shards: [Shard] = []
    var ports = try freePorts(count * 3)
    for index in 0..<count {
      let directory = scratch.appending("shard\(index + 1)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      shards.append(
        Shard(
          httpPort: ports.removeFirst(), tcpPort: ports.removeFirst(),
          interserverPort: ports.removeFirst(), directory: directory))
    }
    return shards
  }

  deinit { stopAll() }

  /// The server's URLs, as `--clickhouse` takes them.
  public var urls: [URL] { shards.map(\.url) }

  /// Starts shard `index` (again, after `stop`) and waits until it answers.
  public func start(_ index: Int) throws {
    let shard = shards[index]
    let pid = try Self.spawn([
      Self.executable, "--config-file=\(shard.directory.appending(path: "config.xml").path)",
    ])
    pids[index] = pid
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        pids[index] = nil
        throw Problem("clickhouse-server of shard \(index + 1) exited: \(errorLog(shard))")
      }
      if (try? query(index, "SELECT 1")) == "1\n" { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    throw Problem("clickhouse-server of shard \(index + 1) did not answer within 60 s")
  }

  /// Runs `arguments` as a child of its own, its output to /dev/null and
  /// no signal blocked; returns its pid.
  ///
  /// Not through Foundation's `Process`: it learns of a child's exit when
  /// a socket the child inherits closes, and clickhouse-server closes the
  /// descriptors it inherits as it starts. Foundation then waited for a
  /// server that still ran, and saw no other child's exit (every uptaked
  /// a test stopped) until the server was killed.
  private static func spawn(_ arguments: [String]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // The test process blocks SIGTERM in its threads; a server must not.
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
    guard status == 0 else {
      throw Problem("cannot start \(arguments[0]): \(String(cString: strerror(status)))")
    }
    return pid
  }

  /// Stops shard `index` at once (SIGKILL), as a crashed or unplugged
  /// server, and waits for it.
  public func stop(_ index: Int) {
    guard let pid = pids[index] else { return }
    kill(pid, SIGKILL)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    pids[index] = nil
  }

  public func stopAll() {
    for index in pids.indices { stop(index) }
    scratch.remove()
  }

  /// What shard `index` answers to `sql`, over its HTTP interface.
  public func query(_ index: Int, _ sql: String) throws -> String {
    let answer = try client.send("POST", shards[index].url, body: Data(sql.utf8))
    guard answer.status == 200 else {
      throw Problem("shard \(index + 1) answered \(answer.status): \(answer.text)")
    }
    return answer.text
  }

  private func errorLog(_ shard: Shard) -> String {
    (try? String(contentsOf: shard.directory.appending(path: "error.log"), encoding: .utf8))
      .map { String($0.suffix(2000)) } ?? "(no error log)"
  }

  private func configXML(for shard: Shard) -> String {
    let directory = shard.directory.path
    let replicas = shards.map {
      "<shard><replica><host>127.0.0.1</host><port>\($0.tcpPort)</port></replica></shard>"
    }.joined()
    return """
      <?xml version="1.0"?>
      <yandex>
        <logger><level>warning</level><log>\(directory)/server.log</log>\
      <errorlog>\(directory)/error.log</errorlog><size>10M</size><count>1</count></logger>
        <http_port>\(shard.httpPort)</http_port>
        <tcp_port>\(shard.tcpPort)</tcp_port>
        <interserver_http_port>\(shard.interserverPort)</interserver_http_port>
        <listen_host>127.0.0.1</listen_host>
        <path>\(directory)/data/</path>
        <tmp_path>\(directory)/tmp/</tmp_path>
        <user_files_path>\(directory)/user_files/</user_files_path>
        <format_schema_path>\(directory)/format_schemas/</format_schema_path>
        <users_config>\(scratch.path("users.xml"))</users_config>
        <default_profile>default</default_profile>
        <default_database>default</default_database>
        <mark_cache_size>268435456</mark_cache_size>
        <mlock_executable>false</mlock_executable>
        <remote_servers><\(Self.clusterName)>\(replicas)</\(Self.clusterName)></remote_servers>
      </yandex>

      """
  }

  private static let usersXML = """
    <?xml version="1.0"?>
    <yandex>
      <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
      <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>\
    <profile>default</profile><quota>default</quota></default></users>
      <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>\
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>\
    </interval></default></quotas>
    </yandex>

    """

  /// Ports free at this moment: each bound on loopback by the kernel's
  /// choice, all held until every one is chosen, then released.
  private static func freePorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { for socket in sockets { close(socket) } }
    var ports: [Int] = []
    for _ in 0..<count {
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard descriptor >= 0 else { throw Problem("socket: \(errno)") }
      sockets.append(descriptor)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = 0
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
      }
      guard bound else { throw Problem("bind: \(errno)") }
      ports.append(Int(UInt16(bigEndian: address.sin_port)))
    }
    return ports
  }

  public struct Problem: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }
}
