import Foundation
import UptakeClient

/// A command line the example cannot run.
struct UsageError: Error {
  let message: String

  init(_ message: String) { self.message = message }
}
