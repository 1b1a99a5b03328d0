/// The version_changes rows a fold adds and removes, netted in memory and
/// written once each, in key order. Applying "record" (INSERT OR IGNORE)
/// and "forget" (DELETE) one by one would give the same table: a row
/// forgotten and recorded again ends with the later record's time, a row
/// recorded twice keeps the first.
struct VersionChanges {
  private struct Key: Hashable {
    let scope: ChangeScope
    let from: Int32
    let day: Int32
    let to: Int32
  }

  private struct Outcome {
    var deletesStoredRow = false
    var insertTs: Int64?
  }

  private var outcomes: [Key: Outcome] = [:]

  /// Records the change from `from` to `to` (on `to`'s day, at its first
  /// time) when `to`'s version is higher; returns whether it is.
  @discardableResult
  mutating func record(
    _ scope: ChangeScope, from: SeenRow, to: SeenRow, _ versions: inout TextNumbering
  ) -> Bool {
    guard isUpgrade(from: from.version, to: to.version, &versions) else { return false }
    let key = Key(scope: scope, from: from.version, day: to.day, to: to.version)
    if outcomes[key, default: Outcome()].insertTs == nil {
      outcomes[key, default: Outcome()].insertTs = to.firstTs
    }
    return true
  }

  /// Removes the change from `from` to `to`: a row has come between them.
  /// Returns whether there was one.
  @discardableResult
  mutating func forget(
    _ scope: ChangeScope, from: SeenRow, to: SeenRow, _ versions: inout TextNumbering
  ) -> Bool {
    guard isUpgrade(from: from.version, to: to.version, &versions) else { return false }
    let key = Key(scope: scope, from: from.version, day: to.day, to: to.version)
    outcomes[key] = Outcome(deletesStoredRow: true, insertTs: nil)
    return true
  }

  func write(_ database: Database, versions: TextNumbering) throws(StoreError) {
    guard !outcomes.isEmpty else { return }
    let ranks = versions.byteOrderRanks()
    let ordered = outcomes.sorted { lhs, rhs in
      let (left, right) = (lhs.key, rhs.key)
      if left.scope.appNo != right.scope.appNo { return left.scope.appNo < right.scope.appNo }
      if left.scope.isTest != right.scope.isTest { return !left.scope.isTest }
      if left.from != right.from { return ranks[Int(left.from)] < ranks[Int(right.from)] }
      if left.day != right.day { return left.day < right.day }
      if left.scope.installKey != right.scope.installKey {
        return left.scope.installKey < right.scope.installKey
      }
      return ranks[Int(left.to)] < ranks[Int(right.to)]
    }
    let delete = try database.statement(
      """
      DELETE FROM version_changes WHERE app_no = ? AND is_test = ? AND from_version = ? AND day = ?
        AND install_key = ? AND to_version = ?
      """)
    let insert = try database.statement(
      """
      INSERT OR IGNORE INTO version_changes (app_no, is_test, from_version, day, install_key,
        to_version, ts)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """)
    for (key, outcome) in ordered {
      var statements: [(Statement, Int64?)] = []
      if outcome.deletesStoredRow { statements.append((delete, nil)) }
      if let ts = outcome.insertTs { statements.append((insert, ts)) }
      for (statement, ts) in statements {
        try statement.bind(1, key.scope.appNo)
        try statement.bind(2, Int64(key.scope.isTest ? 1 : 0))
        try statement.bind(3, versions.texts[Int(key.from)])
        try statement.bind(4, Int64(key.day))
        try statement.bind(5, key.scope.installKey)
        try statement.bind(6, versions.texts[Int(key.to)])
        if let ts { try statement.bind(7, ts) }
        try statement.run()
      }
    }
  }

  private func isUpgrade(from: Int32, to: Int32, _ versions: inout TextNumbering) -> Bool {
    guard let old = versions.version(from), let new = versions.version(to) else { return false }
    return new > old
  }
}
