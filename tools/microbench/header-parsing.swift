// What parsing two request headers costs on every ingest request, as the
// HTTP layer does it at commit c22c497 and done on UTF-8 bytes instead
// (docs/performance.md). Standalone, not part of the package:
//
//   swiftc -O tools/microbench/header-parsing.swift -o /tmp/header-parsing
//   /tmp/header-parsing
import Foundation

/// `Router.presentedKey`'s parsing of `Authorization: Bearer …`.
@inline(never) func bearerTokenAsRouted(_ header: String) -> String? {
  let parts = header.split(separator: " ", maxSplits: 1)
  guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
  let rest = parts[1]
  let token = String(
    rest.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  return token.isEmpty ? nil : token
}

/// The same answer from the header's bytes.
@inline(never) func bearerTokenFromBytes(_ header: String) -> String? {
  let parts = header.split(separator: " ", maxSplits: 1)
  guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
  let rest = parts[1]
  var start = rest.utf8.startIndex
  var end = rest.utf8.endIndex
  while start < end, rest.utf8[start] == 0x20 { start = rest.utf8.index(after: start) }
  while end > start, rest.utf8[rest.utf8.index(before: end)] == 0x20 {
    end = rest.utf8.index(before: end)
  }
  return start == end ? nil : String(rest[start..<end])
}

/// `IngestHandler.admit`'s check of `Content-Type`.
@inline(never) func isJSONAsAdmitted(_ contentType: String) -> Bool {
  let mediaType = contentType.split(separator: ";", maxSplits: 1).first?
    .trimmingCharacters(in: .whitespaces).lowercased()
  return mediaType == "application/json"
}

/// The same answer from the header's bytes.
@inline(never) func isJSONFromBytes(_ contentType: String) -> Bool {
  let wanted = Array("application/json".utf8)
  var bytes = contentType.utf8[...]
  if let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) { bytes = bytes[..<semicolon] }
  while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
  while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
  guard bytes.count == wanted.count else { return false }
  // Lower-casing ASCII letters is enough: the wanted bytes are lower case.
  return zip(bytes, wanted).allSatisfy { $0 | 0x20 == $1 || $0 == $1 }
}

func nanosecondsPerCall(_ body: () -> Int) -> Double {
  let calls = 200_000
  var sink = 0
  let start = DispatchTime.now().uptimeNanoseconds
  for _ in 0..<calls { sink &+= body() }
  precondition(sink != 0)
  return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(calls)
}

for header in ["Bearer upi_30K2bkgZnxBehA7QvJa4xYRNgyhvvZ3D", "Bearer   k  ", "bearer", "Basic x"] {
  precondition(bearerTokenAsRouted(header) == bearerTokenFromBytes(header), header)
}
for value in [
  "application/json", "Application/JSON; charset=utf-8", " application/json ", "text/plain",
] {
  precondition(isJSONAsAdmitted(value) == isJSONFromBytes(value), value)
}
let authorization = "Bearer upi_30K2bkgZnxBehA7QvJa4xYRNgyhvvZ3D"
for _ in 0..<2 {
  let routed = nanosecondsPerCall { bearerTokenAsRouted(authorization)?.utf8.count ?? 0 }
  let bytes = nanosecondsPerCall { bearerTokenFromBytes(authorization)?.utf8.count ?? 0 }
  let admitted = nanosecondsPerCall { isJSONAsAdmitted("application/json") ? 1 : 0 }
  let admittedBytes = nanosecondsPerCall { isJSONFromBytes("application/json") ? 1 : 0 }
  print(
    String(
      format:
        "bearer token: %.0f ns as routed, %.0f ns from bytes; content type: %.0f ns as admitted, %.0f ns from bytes",
      routed, bytes, admitted, admittedBytes))
}
