/// One row of dimension_sets (schema/0005_dimension_rollups.sql): an
/// app's update, app version, platform and OS version as events carried
/// them together.
struct DimensionSet: Hashable {
  let appNo: Int64
  let updateId: String
  let appVersion: String
  let platform: String?
  let osVersion: String?
}
