import UptakeCore
import UptakeStore

/// `GET /v1/store` (read key): what the App Store watch knows of the app,
/// per platform and country (issue 24): the versions seen, when each was
/// first seen and became live, and the last lookup with its outcome. A
/// product team sees why a country gets no prompt yet; an operator sees
/// whether Apple's lookup answers.
struct StoreHandlers: Sendable {
  let configurations: UpdateConfigDirectory<CheckAnswers>
  let watcher: AppStoreWatcher

  var routes: [Route] {
    [Route("GET", "/v1/store", access: .readKey) { .respond(store($0)) }]
  }

  func store(_ request: Request) -> Response {
    guard let app = request.app else { return APIError.unauthorized.response }
    let now = watcher.nowMs()
    let platforms = configurations.compiled(appNo: app.appNo)?.platforms ?? [:]
    var json = JSONWriter()
    json.beginObject()
    json.member("now", Timestamp.formatRFC3339(now))
    json.key("platforms")
    json.beginArray()
    for platform in Platform.allCases {
      guard let entry = platforms[platform]?.entry, let watch = entry.appStore else { continue }
      json.beginObject()
      json.member("platform", platform.rawValue)
      json.member("updateId", entry.updateId)
      json.member("appStoreId", watch.appId)
      json.member("latestVersion", entry.latestVersion.text)
      json.key("requiredVersion")
      if let required = entry.requiredVersion { json.value(required.text) } else { json.null() }
      json.member("graceHours", watch.graceHours)
      json.key("countries")
      json.beginArray()
      for country in watch.countries {
        let state = watcher.snapshot(appId: watch.appId, country: country) ?? CountryStoreState()
        write(country, state, watch, now: now, into: &json)
      }
      json.endArray()
      json.endObject()
    }
    json.endArray()
    json.endObject()
    return .json(json)
  }

  private func write(
    _ country: String, _ state: CountryStoreState, _ watch: AppStoreWatch, now: Int64,
    into json: inout JSONWriter
  ) {
    json.beginObject()
    json.member("country", country)
    json.member("status", state.status(at: now, graceMs: watch.graceMs).rawValue)
    json.key("liveVersion")
    if let live = state.live(at: now, graceMs: watch.graceMs) {
      json.value(live.version.text)
    } else {
      json.null()
    }
    json.key("versions")
    json.beginArray()
    for seen in state.seen.reversed() {
      json.beginObject()
      json.member("version", seen.version.text)
      json.member("firstSeen", Timestamp.formatRFC3339(seen.firstSeenMs))
      let liveSince = state.liveSinceMs(seen.version, graceMs: watch.graceMs) ?? seen.firstSeenMs
      json.member("liveSince", Timestamp.formatRFC3339(liveSince))
      json.key("live")
      json.value(liveSince <= now && !state.notSold)
      json.key("minimumOsVersion")
      if let minimum = seen.minimumOsVersion { json.value(minimum.text) } else { json.null() }
      json.endObject()
    }
    json.endArray()
    json.key("lastLookup")
    if let lookup = state.lastLookup {
      json.beginObject()
      json.member("at", Timestamp.formatRFC3339(lookup.atMs))
      json.member("outcome", lookup.outcome)
      json.key("detail")
      if let detail = lookup.detail { json.value(detail) } else { json.null() }
      json.member("failuresInARow", state.failuresInARow)
      json.endObject()
    } else {
      json.null()
    }
    json.endObject()
  }
}
