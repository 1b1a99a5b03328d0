/// The numbers of daily_counts' buckets (app, test flag, update, day,
/// action) in daily_buckets (schema/0011): bucket_members keys its rows by
/// the number, so the update id's text is stored once a bucket instead of
/// once a member. A bucket is numbered by the first fold that meets one of
/// its installs.
struct DailyBuckets {
  private let find: Statement
  private let add: Statement
  private let database: Database

  init(_ database: Database) throws(StoreError) {
    self.database = database
    find = try database.statement(
      """
      SELECT bucket_no FROM daily_buckets
      WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
      """)
    add = try database.statement(
      """
      INSERT INTO daily_buckets (app_no, is_test, update_id, day, action) VALUES (?, ?, ?, ?, ?)
      """)
  }

  /// The bucket's number; nil when no fold has met an install of it.
  func known(_ bucket: InstallChunks.Bucket) throws(StoreError) -> Int64? {
    try bucket.bind(to: find)
    defer { find.reset() }
    return try find.step() ? find.int64(0) : nil
  }

  /// The bucket's number, numbering it when it has none yet. Inside the
  /// fold's transaction.
  func number(_ bucket: InstallChunks.Bucket) throws(StoreError) -> Int64 {
    if let known = try known(bucket) { return known }
    try bucket.bind(to: add)
    try add.run()
    return database.lastInsertRowID
  }
}
