import UptakeCore

/// The parameters every report takes: the date range, the test filter, and
/// whether to answer in CSV.
struct ReportRequest {
  let range: DayRange
  let test: TestFilter
  let wantsCSV: Bool

  static func parse(_ request: Request, nowMs: Int64) -> Result<ReportRequest, APIError> {
    let range: DayRange
    switch DayRange.parse(from: request.query("from"), to: request.query("to"), nowMs: nowMs) {
    case .success(let parsed): range = parsed
    case .failure(let error): return .failure(.badRequest(error.message))
    }
    var test = TestFilter.exclude
    if let text = request.query("test") {
      guard let parsed = TestFilter(rawValue: text) else {
        return .failure(.badRequest("test: use exclude, include or only"))
      }
      test = parsed
    }
    let wantsCSV: Bool
    switch request.query("format") {
    case nil:
      wantsCSV = request.head.header("accept")?.lowercased().contains("text/csv") ?? false
    case "csv": wantsCSV = true
    case "json": wantsCSV = false
    default: return .failure(.badRequest("format: use json or csv"))
    }
    return .success(ReportRequest(range: range, test: test, wantsCSV: wantsCSV))
  }
}
