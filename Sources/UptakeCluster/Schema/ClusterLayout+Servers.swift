/// The three ways a node asks the layout's servers: every server (a
/// change to what each holds whole), every server that answers (a read
/// of what each holds whole), or the first that answers (a statement any
/// server passes on to the shards).
extension ClusterLayout {
  /// Runs `body` on every server; returns how many took it. Throws the
  /// last failure when none did.
  @discardableResult
  func onEveryServer(_ body: (ClickHouseServer) throws(ClickHouseError) -> Void)
    throws(ClickHouseError) -> Int
  {
    try fromEveryServer(body).count
  }

  /// `body`'s answer from every server that gives one, with the server.
  /// Throws the last failure when none does.
  func fromEveryServer<Answer>(_ body: (ClickHouseServer) throws(ClickHouseError) -> Answer)
    throws(ClickHouseError) -> [(server: ClickHouseServer, answer: Answer)]
  {
    var answers: [(server: ClickHouseServer, answer: Answer)] = []
    var lastFailure: ClickHouseError?
    for server in servers {
      do {
        answers.append((server, try body(server)))
      } catch {
        lastFailure = error
      }
    }
    if answers.isEmpty, let lastFailure { throw lastFailure }
    return answers
  }

  /// `body`'s answer from the first server that gives one. Throws every
  /// server's failure when none does.
  func fromFirstServer<Answer>(_ body: (ClickHouseServer) throws(ClickHouseError) -> Answer)
    throws(NoServerAnswered) -> Answer
  {
    var failures: [ClickHouseError] = []
    for server in servers {
      do {
        return try body(server)
      } catch {
        failures.append(error)
      }
    }
    throw NoServerAnswered(failures: failures)
  }
}

/// Every server's failure, when none answered.
struct NoServerAnswered: Error, CustomStringConvertible {
  let failures: [ClickHouseError]

  var description: String { failures.map(\.description).joined(separator: "; ") }
}
