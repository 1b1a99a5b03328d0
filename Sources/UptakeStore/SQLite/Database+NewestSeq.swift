extension Database {
  /// The sequence number of the newest stored event, 0 when there is none:
  /// what the writer's indexes (duplicates, distinct values) and the fold
  /// catch up to.
  func newestEventSeq() throws(StoreError) -> Int64 {
    try scalarInt("SELECT max(seq) FROM main.events") ?? 0
  }
}
