import Foundation
import UptakeStore

/// Opens the database for a command. Commands other than `apps add` need an
/// existing file (exit 66 otherwise), so a mistyped --db never silently
/// creates an empty database.
enum StoreAccess {
  static func open(_ path: String, create: Bool = false) throws(CommandError) -> Database {
    if !create && !FileManager.default.fileExists(atPath: path) {
      throw CommandError(message: "database \(path) does not exist", exitCode: ExitCode.noInput)
    }
    do {
      let database = try Database(path: path, create: create)
      try Migrator.migrate(database)
      return database
    } catch {
      if error.sqliteCode == 14 {  // SQLITE_CANTOPEN
        throw CommandError(message: "cannot open database \(path)", exitCode: ExitCode.noInput)
      }
      throw .store(error)
    }
  }

  /// The app named by `--app`, or exit 65 when there is none.
  static func app(_ appId: String, in database: Database) throws(CommandError) -> AppRecord {
    let found: AppRecord?
    do {
      found = try AppRegistry.find(appId, in: database)
    } catch {
      throw .store(error)
    }
    guard let found else { throw .data("no app \"\(appId)\" (see: uptake apps list)") }
    return found
  }
}
