import Foundation
import UptakeClient

// An app's update loop in one run: check, show, record, flush. The exit
// codes follow sysexits, as the uptake CLI's do.

let options: ExampleOptions
do {
  options = try ExampleOptions.parse(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch let error as UsageError {
  FileHandle.standardError.write(Data("uptake-example: \(error.message)\n\n".utf8))
  FileHandle.standardError.write(Data(ExampleOptions.usage.utf8))
  exit(64)
}
if options.help {
  print(ExampleOptions.usage, terminator: "")
  exit(0)
}

let client: UptakeClient
do {
  client = try UptakeClient(
    configuration: UptakeConfiguration(
      baseURL: options.url, ingestKey: options.key!, appVersion: options.appVersion,
      platform: options.platform, osVersion: options.osVersion, locale: options.locale,
      storageDirectory: options.storage,
      // One explicit flush at the end, as an app going to the background.
      limits: UptakeLimits(
        batchSize: options.batchSize, attemptsPerFlush: 3, initialBackoff: 0.5, autoFlushDelay: nil)
    ))
} catch {
  FileHandle.standardError.write(
    Data("uptake-example: cannot use \(options.storage.path): \(error)\n".utf8))
  exit(73)
}

if options.command == .run {
  print("install \(client.installId), app \(options.appVersion) on \(options.platform.rawValue)")
  switch await client.check() {
  case .noUpdate:
    if let updateId = options.updateId {
      print("check: no update; showing update \(updateId) as --update-id asks")
      let choices: [Action] = [.download, .later, .ignore]
      show(
        client,
        updateId: updateId, lines: ["A new version is available."],
        buttons: choices, pick: options.action ?? choices.randomElement()!)
    } else {
      print("check: no update (nothing configured, or the server is unreachable)")
    }
  case .update(let prompt):
    var buttons: [Action] = [.download]
    if prompt.option != .force && !prompt.isForced { buttons.append(.later) }
    if prompt.option == .flexible && !prompt.isForced { buttons.append(.ignore) }
    let pick =
      options.action.flatMap { buttons.contains($0) ? $0 : nil } ?? buttons.randomElement()!
    show(
      client,
      updateId: prompt.updateId,
      lines: [
        prompt.texts.title, prompt.texts.description,
        "version \(prompt.latestVersion), \(prompt.isForced ? "forced" : "\(prompt.option)")",
        "store: \(prompt.storeURL?.absoluteString ?? "-")",
      ],
      buttons: buttons, pick: pick)
  case .osTooOld(let notice):
    show(
      client,
      updateId: notice.updateId,
      lines: [notice.title, notice.description, "alert: \(notice.alertType)"],
      buttons: [], pick: nil)
  case .endOfLife(let notice):
    show(
      client, updateId: notice.updateId, lines: [notice.message, "end of life"], buttons: [],
      pick: nil)
  }
}

let result = await client.flush()
let stats = client.stats
print(
  "flush: \(result.requests) request(s), \(stats.delivered) delivered, "
    + "\(stats.duplicates) duplicate(s), \(stats.rejected + stats.discarded) refused, "
    + "\(result.remaining) still queued")
exit(result.remaining == 0 ? 0 : 69)
