import UptakeCore

/// Encodes events in the ingest format, as the apps send them.
public enum EventJSON {
  /// One event as a JSON object, without a line end.
  public static func object(_ event: Event) -> String {
    var writer = JSONWriter()
    write(event, into: &writer)
    return writer.text
  }

  /// A request body `{"events": [...]}`.
  public static func batch(_ events: [Event]) -> String {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("events")
    writer.beginArray()
    for event in events { write(event, into: &writer) }
    writer.endArray()
    writer.endObject()
    return writer.text
  }

  static func write(_ event: Event, into writer: inout JSONWriter) {
    writer.beginObject()
    if let id = event.id { writer.member("id", id) }
    writer.member("updateId", event.updateId)
    writer.member("action", event.action.name)
    writer.member("appVersion", event.appVersion)
    if let installId = event.installId { writer.member("installId", installId) }
    writer.member("timestamp", Timestamp.formatRFC3339(event.timestampMs))
    if let osVersion = event.osVersion { writer.member("osVersion", osVersion) }
    if let platform = event.platform { writer.member("platform", platform.rawValue) }
    if let previous = event.previousAppVersion { writer.member("previousAppVersion", previous) }
    if event.isTest {
      writer.key("test")
      writer.value(true)
    }
    writer.endObject()
  }
}
