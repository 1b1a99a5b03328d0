import UptakeCore

/// An event of the unfolded tail with its texts resolved, for the reports
/// that read the tail event by event. It is made only from the fold's own
/// projection (`FoldBatch.read`), so the tail counts what a fold counts.
struct RollupEvent {
  let appNo: Int64
  let isTest: Bool
  let updateId: String
  let action: Action
  let appVersion: String
  let installKey: Int64?
  let timestampMs: Int64
  let platform: String?
  let osVersion: String?

  /// `event`, one of `batch`'s, with its texts.
  init(_ event: FoldEvent, in batch: FoldBatch) {
    let dimensions = batch.dimensionSet(of: event)
    appNo = event.appNo
    isTest = event.isTest
    updateId = batch.updateId(of: event)
    // FoldBatch.read keeps the events of known actions only.
    action = Action(rawValue: Int(event.action))!
    appVersion = batch.appVersion(of: event)
    installKey = event.hasInstall ? event.installKey : nil
    timestampMs = event.timestampMs
    platform = dimensions.platform
    osVersion = dimensions.osVersion
  }
}
