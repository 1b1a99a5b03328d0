/// A dimension set of a fold batch by its texts' numbers (-1 for a missing
/// platform or OS version).
struct DimensionCodes: Equatable {
  let appNo: Int64
  let update: Int32
  let version: Int32
  let platform: Int32
  let osVersion: Int32
}
