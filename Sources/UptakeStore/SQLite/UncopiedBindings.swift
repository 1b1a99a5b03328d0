import CSQLite

/// Texts and blobs bound straight from one byte buffer, which SQLite reads
/// in place instead of copying (`Statement.run(uncopied:_:)`).
///
/// Why: the fold writes install_days rows 64 to a statement, a text and a
/// blob each, and every copy SQLite made was an allocation, a copy and a
/// free: with the bindings' other work, binding was a sixth of writing the
/// rows (`perf`, docs/performance.md, session 32).
struct UncopiedBindings {
  fileprivate let statement: Statement
  fileprivate let bytes: UnsafeRawBufferPointer

  /// Binds `bytes[range]` as a blob. An empty range binds an empty blob.
  func bindBlob(_ index: Int32, _ range: Range<Int>) throws(StoreError) {
    guard !range.isEmpty else {
      try statement.check(sqlite3_bind_zeroblob(statement.handle, index, 0))
      return
    }
    try statement.check(
      sqlite3_bind_blob(statement.handle, index, address(range), Int32(range.count), nil))
  }

  /// Binds `bytes[range]`, UTF-8, as text.
  func bindText(_ index: Int32, _ range: Range<Int>) throws(StoreError) {
    guard !range.isEmpty else {
      try statement.bind(index, "")
      return
    }
    try statement.check(
      sqlite3_bind_text(
        statement.handle, index, address(range).assumingMemoryBound(to: CChar.self),
        Int32(range.count), nil))
  }

  private func address(_ range: Range<Int>) -> UnsafeRawPointer {
    precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "outside the bytes")
    return bytes.baseAddress! + range.lowerBound
  }
}

extension Statement {
  /// Runs the statement once with the bindings `bind` makes, texts and
  /// blobs among them read in place from `bytes`, then clears every
  /// binding: SQLite holds no pointer into `bytes` past this call.
  /// (SQLite's `SQLITE_STATIC`: bytes bound so must outlive their use.)
  func run(
    uncopied bytes: [UInt8], _ bind: (UncopiedBindings) throws(StoreError) -> Void
  ) throws(StoreError) {
    // Array's withUnsafeBytes does not carry a typed error through.
    let ran = bytes.withUnsafeBytes { buffer -> Result<Void, StoreError> in
      defer { sqlite3_clear_bindings(handle) }
      do throws(StoreError) {
        try bind(UncopiedBindings(statement: self, bytes: buffer))
        try run()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try ran.get()
  }
}
