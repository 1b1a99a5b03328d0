/// The numbers of daily_counts' buckets (app, test flag, update, day,
/// action) in daily_buckets (schema/0011): bucket_members keys its rows by
/// the number, so the update id's text is stored once a bucket instead of
/// once a member. A bucket is numbered by the first fold that meets one of
/// its installs; used inside the fold's transaction.
struct DailyBuckets {
  private let find: Statement
  private let add: Statement
  private let database: Database

  init(_ database: Database) throws(StoreError) {
    self.database = database
    find = try database.statement(Self.findSQL)
    add = try database.statement(
      """
      INSERT INTO daily_buckets (app_no, is_test, update_id, day, action) VALUES (?, ?, ?, ?, ?)
      """)
  }

  /// The bucket's number, numbering it when it has none yet.
  func number(_ bucket: InstallChunks.Bucket) throws(StoreError) -> Int64 {
    if let known = try Self.number(of: bucket, using: find) { return known }
    try Self.bind(add, bucket)
    try add.run()
    return database.lastInsertRowID
  }

  /// The bucket's number; nil when no fold has met an install of it.
  /// `find` is the lookup statement, prepared by the caller's connection.
  static func number(of bucket: InstallChunks.Bucket, using find: Statement)
    throws(StoreError) -> Int64?
  {
    try bind(find, bucket)
    defer { find.reset() }
    return try find.step() ? find.int64(0) : nil
  }

  static let findSQL = """
    SELECT bucket_no FROM daily_buckets
    WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
    """

  private static func bind(_ statement: Statement, _ bucket: InstallChunks.Bucket)
    throws(StoreError)
  {
    try statement.bind(1, bucket.appNo)
    try statement.bind(2, Int64(bucket.isTest ? 1 : 0))
    try statement.bind(3, bucket.updateId)
    try statement.bind(4, bucket.day)
    try statement.bind(5, bucket.action)
  }
}
