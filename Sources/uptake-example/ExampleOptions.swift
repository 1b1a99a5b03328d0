import Foundation
import UptakeClient

/// The example's command line.
struct ExampleOptions {
  /// `run`: check, show, pick, record, flush. `flush`: send what is queued.
  enum Command: String {
    case run, flush
  }

  var command = Command.run
  var url = URL(string: "http://127.0.0.1:8080")!
  var key: String?
  var appVersion = "1.0.0"
  var platform = Platform.ios
  var osVersion = "17.4"
  var locale = "en"
  /// What the user does with a prompt; nil: a random choice among its buttons.
  var action: Action?
  /// A prompt to pretend the check answered, for a server without a
  /// configuration yet.
  var updateId: String?
  var storage = URL(fileURLWithPath: "uptake-example-data", isDirectory: true)
  var batchSize = UptakeLimits().batchSize
  var help = false

  static let usage = """
    usage: uptake-example [run|flush] --key INGEST_KEY [options]

    Plays an app that embeds UptakeClient: asks uptaked which update prompt to
    show, prints the prompt, picks what the user does, records the impression
    and the choice, and flushes the queue. Events that cannot be sent stay in
    the storage directory; `uptake-example flush` sends them later.

    commands:
      run                 check, show, record, flush (the default)
      flush               only send the events already queued

    options:
      --url URL           uptaked's address (default http://127.0.0.1:8080; env UPTAKE_URL)
      --key KEY           the app's ingest key (env UPTAKE_INGEST_KEY)
      --app-version V     the version of the app being played (default 1.0.0)
      --platform P        ios, ipados, macos, tvos, watchos, visionos, android, other (default ios)
      --os-version V      the device's OS version (default 17.4)
      --locale L          the user's language (default en)
      --action A          what the user does: download, later or ignore (default: random
                          among the prompt's buttons)
      --update-id ID      show this update when the check has no prompt (a server
                          without an update configuration yet)
      --storage DIR       the client's queue and install id (default ./uptake-example-data)
      --batch-size N      events per request, 1 to 1000 (default 500)
      -h, --help          this text

    exit status: 0 all sent, 64 usage error, 69 events left queued (server
    unreachable), 73 storage directory unusable

    """

  /// Parses `arguments` (without the program name); throws a usage message.
  static func parse(_ arguments: [String], environment: [String: String]) throws -> ExampleOptions {
    var options = ExampleOptions()
    if let url = environment["UPTAKE_URL"].flatMap(URL.init(string:)) { options.url = url }
    options.key = environment["UPTAKE_INGEST_KEY"]
    var rest = arguments[...]
    func value(_ flag: String) throws -> String {
      guard let value = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
      return value
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "-h", "--help": options.help = true
      case "run", "flush": options.command = Command(rawValue: argument)!
      case "--url":
        let text = try value(argument)
        guard let url = URL(string: text), url.scheme != nil else {
          throw UsageError("--url: not a URL: \(text)")
        }
        options.url = url
      case "--key": options.key = try value(argument)
      case "--app-version": options.appVersion = try value(argument)
      case "--os-version": options.osVersion = try value(argument)
      case "--locale": options.locale = try value(argument)
      case "--update-id": options.updateId = try value(argument)
      case "--storage":
        options.storage = URL(fileURLWithPath: try value(argument), isDirectory: true)
      case "--batch-size":
        let text = try value(argument)
        guard let size = Int(text), (1...UptakeLimits.contractBatchMaximum).contains(size) else {
          throw UsageError("--batch-size: expected 1 to 1000, got \(text)")
        }
        options.batchSize = size
      case "--platform":
        let text = try value(argument)
        guard let platform = Platform(rawValue: text) else {
          throw UsageError("--platform: unknown platform \(text)")
        }
        options.platform = platform
      case "--action":
        let text = try value(argument)
        guard let action = Action(rawValue: text), action != .impression else {
          throw UsageError("--action: expected download, later or ignore, got \(text)")
        }
        options.action = action
      default:
        throw UsageError("unknown argument \(argument)")
      }
    }
    if !options.help && options.key == nil {
      throw UsageError("--key (or UPTAKE_INGEST_KEY) is required")
    }
    return options
  }
}
