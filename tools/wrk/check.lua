-- wrk script: GET /v1/check as an app launch would, with a different
-- installId on each request (so the rollout hash runs every time) and a
-- mix of app versions and locales. The ingest key comes from
-- UPTAKE_INGEST_KEY; CHECK_PLATFORM picks the platform (default ios).
--   UPTAKE_INGEST_KEY=upi_… wrk -t2 -c64 -d10s -s tools/wrk/check.lua http://127.0.0.1:8080
local key = os.getenv("UPTAKE_INGEST_KEY") or error("set UPTAKE_INGEST_KEY")
local platform = os.getenv("CHECK_PLATFORM") or "ios"
local versions = { "1.9.0", "2.0.1", "2.0.5", "2.1.0" }
local locales = { "en-US", "de_DE", "fr", "ja-JP" }

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("thread_id", counter)
end

local n = 0

function init(args)
  wrk.headers["X-Uptake-Key"] = key
end

function request()
  n = n + 1
  local path = string.format(
    "/v1/check?platform=%s&appVersion=%s&osVersion=17.%d&installId=%d-%d&locale=%s",
    platform, versions[n % #versions + 1], n % 3, thread_id or 0, n, locales[n % #locales + 1])
  return wrk.format("GET", path)
end

-- wrk counts every answer other than 2xx/3xx as an error; a check that
-- answers 400 or 401 is a broken benchmark, not a fast one.
function done(summary, latency, requests)
  io.write(string.format("check: %d requests, %d non-2xx/3xx\n",
    summary.requests, summary.errors.status))
end
