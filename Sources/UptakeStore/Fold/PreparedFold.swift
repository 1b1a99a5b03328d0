/// A fold read (`RollupWriter.prepare`), waiting to be written
/// (`RollupFolder.fold(_:)`). The fold thread reads it in a short read
/// transaction, so it holds no snapshot of the events file while it writes.
struct PreparedFold {
  /// The folded seq it was read after: it is stale once that moved.
  let afterSeq: Int64
  var batch: FoldBatch
  var dimensions: DimensionFold.Prepared

  /// Events it folds.
  var count: Int { batch.count }
}
