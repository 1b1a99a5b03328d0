import Foundation
import UptakeCore

let usage = """
  usage: uptake-collide installs --app-no N [--count C] [--bits B]
         uptake-collide texts [--count C] [--bits B]

  Prints, one a line, ids an attacker holding an app's public ingest key
  could craft against hash tables that took slots from unkeyed hashes
  (tools/attack, issue 25):

    installs  installIds whose install keys (StableHash.installKey of the
              app number N, as stored) share their low B bits
    texts     texts (update ids, versions) whose FNV-1a, folded to 32 bits
              as the fold's text numbering hashed them, share their low B bits

  options:
    --count C   how many (default 131072)
    --bits B    low bits shared (default 12)
  """

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("uptake-collide: \(message)\n\n\(usage)\n".utf8))
  exit(64)
}

var arguments = CommandLine.arguments.dropFirst()
if arguments.first == "-h" || arguments.first == "--help" {
  print(usage)
  exit(0)
}
guard let kind = arguments.popFirst(), kind == "installs" || kind == "texts" else {
  fail("say installs or texts")
}
var appNo: Int64?
var count = 131_072
var bits = 12
while let flag = arguments.popFirst() {
  guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
  switch flag {
  case "--app-no": appNo = Int64(value) ?? { fail("bad --app-no") }()
  case "--count": count = Int(value) ?? { fail("bad --count") }()
  case "--bits":
    bits = Int(value).flatMap { (1...30).contains($0) ? $0 : nil } ?? { fail("bad --bits") }()
  default: fail("unknown option \(flag)")
  }
}
if kind == "installs" && appNo == nil { fail("installs need --app-no") }

let mask: UInt64 = (1 << UInt64(bits)) - 1

/// FNV-1a's state after the app number's 8 little-endian bytes, where
/// `StableHash.installKey` starts each id: hashing whole ids through its
/// generic entry point took minutes for the half a billion candidates.
let appBasis: UInt64 = {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  var number = UInt64(bitPattern: appNo ?? 0)
  for _ in 0..<8 {
    hash = (hash ^ (number & 0xFF)) &* 0x100_0000_01b3
    number >>= 8
  }
  return hash
}()

/// `StableHash.installKey` of `text` for the app, as stored.
func installKey(_ text: [UInt8]) -> UInt64 {
  var hash = appBasis
  for byte in text { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
  hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
  hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
  return hash ^ (hash >> 31)
}
var output = [UInt8]()
output.reserveCapacity(count * 12)
var found = 0
var candidate: UInt64 = 0
var text = [UInt8](repeating: 0, count: 10)
let hexDigits = Array("0123456789abcdef".utf8)
while found < count {
  // "c" or "u", then the candidate number in 9 hex digits: fixed length.
  text[0] = kind == "installs" ? UInt8(ascii: "c") : UInt8(ascii: "u")
  var number = candidate
  for index in stride(from: 9, through: 1, by: -1) {
    text[index] = hexDigits[Int(number & 15)]
    number >>= 4
  }
  let shared: Bool
  if let appNo {
    shared = installKey(text) & mask == 0
    // The copy of the stored hash must be the stored hash.
    if shared && found < 4 {
      precondition(
        installKey(text) == UInt64(bitPattern: StableHash.installKey(appNo: appNo, utf8: text)))
    }
  } else {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    shared = (hash ^ (hash >> 32)) & mask == 0
  }
  if shared {
    output += text
    output.append(UInt8(ascii: "\n"))
    found += 1
  }
  candidate += 1
}
FileHandle.standardOutput.write(Data(output))
