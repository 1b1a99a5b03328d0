import UptakeClient

/// Prints the prompt as a box, then records the impression and the choice.
func show(
  _ client: UptakeClient, updateId: String, lines: [String], buttons: [Action], pick: Action?
) {
  let buttonLine = buttons.map { $0 == pick ? "[*\($0.rawValue)*]" : "[\($0.rawValue)]" }
  let body = lines + (buttonLine.isEmpty ? [] : [buttonLine.joined(separator: " ")])
  let width = body.map(\.count).max() ?? 0
  print("+" + String(repeating: "-", count: width + 2) + "+")
  for line in body {
    print("| " + line + String(repeating: " ", count: width - line.count) + " |")
  }
  print("+" + String(repeating: "-", count: width + 2) + "+")
  client.record(.impression, updateId: updateId)
  print("recorded impression of \(updateId)")
  if let pick {
    client.record(pick, updateId: updateId)
    print("recorded \(pick.rawValue) of \(updateId)")
  }
}
