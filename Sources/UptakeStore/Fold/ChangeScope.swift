/// The install a version change belongs to.
struct ChangeScope: Hashable {
  let appNo: Int64
  let isTest: Bool
  let installKey: Int64
}
