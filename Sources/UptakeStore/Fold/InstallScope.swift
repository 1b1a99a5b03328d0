/// One install of one app under one test flag: whose timeline a fold works
/// on.
struct InstallScope: Hashable {
  let appNo: Int64
  let isTest: Bool
  let installKey: Int64
}
