-- wrk script: POST /v1/events with EVENTS_PER_REQUEST events (default 1),
-- each with a fresh random UUIDv4 id, so every event is new to the dedup
-- index. The ingest key comes from UPTAKE_INGEST_KEY.
--   wrk -t2 -c64 -d10s -s tools/wrk/events.lua http://127.0.0.1:8080
--
-- Each event comes from one of a million installs. An install keeps its app
-- version and OS version from event to event, as a real one does: both are
-- derived from the installId, and each install upgrades to the next minor
-- version once an hour at a moment of its own, so about 0.3 % of the
-- installs upgrade during a 10 s run (the wrap from 2.12 back to 2.0 every
-- 13 hours is the only downgrade). Why it matters: the rollups keep a row
-- per install, day and version (install_days) and a row per upgrade
-- (version_changes); with a random version in every event, as this script
-- sent before, nearly every event was a new version of its install and
-- half of them an upgrade, a load no real app produces, and the rollups'
-- cost per event measured that instead of ingest. EVENT_VERSIONS=random
-- still sends the old shape, to compare.
--
-- LATE_SHARE (default 0): that share of the events, chosen at random, arrives
-- late: it carries a "timestamp" (RFC 3339, UTC, to the millisecond) drawn
-- uniformly from 1 to 30 days before the moment it is sent, and the app and
-- OS version its install had at that time, so each install's timeline stays
-- plausible (versions go up over time, as above). The other events carry no
-- timestamp and are stored at the time received. A late event lands between
-- points of its install's timeline in the report aggregates, which the fold
-- then rewrites (tools/bench --late).
--   LATE_SHARE=0.1 EVENTS_PER_REQUEST=100 wrk -t2 -c16 -d30s -s tools/wrk/events.lua URL
--
-- EVENTS_PER_SECOND (default none: as fast as answered): each wrk thread
-- sends about that many events a second, its requests on a schedule (a
-- steady ingest beside reports; run it with -t1 -c1).
local key = os.getenv("UPTAKE_INGEST_KEY") or error("set UPTAKE_INGEST_KEY")
local per_request = tonumber(os.getenv("EVENTS_PER_REQUEST") or "1")
local actions = { "impression", "impression", "impression", "download", "later", "ignore" }
local random_versions = os.getenv("EVENT_VERSIONS") == "random"
local upgrade_period_seconds = 3600
local late_share = tonumber(os.getenv("LATE_SHARE") or "0")
local day_ms = 86400000
local events_per_second = tonumber(os.getenv("EVENTS_PER_SECOND") or "")

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("thread_id", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + (thread_id or 0))
  wrk.method = "POST"
  wrk.path = "/v1/events"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. key
end

local function uuid4()
  local r = math.random
  return string.format("%08x-%04x-4%03x-%04x-%04x%08x",
    r(0, 0xffffffff), r(0, 0xffff), r(0, 0xfff), r(0, 0x3fff) + 0x8000,
    r(0, 0xffff), r(0, 0xffffffff))
end

-- The install's minor version and OS version at `seconds` since the epoch:
-- fixed per install (a cheap integer mix of its number), plus one minor
-- version per upgrade period passed since the install's own phase.
local function versions(install, seconds)
  if random_versions then return math.random(0, 12), math.random(0, 5) end
  -- LuaJIT (wrk's Lua) has no integer division; these products stay exact
  -- in a double.
  local mixed = (install * 2654435761) % 4294967296
  local phase = mixed % upgrade_period_seconds
  local upgrades = math.floor((seconds + phase) / upgrade_period_seconds)
  return (math.floor(mixed / 4096) + upgrades) % 13, math.floor(mixed / 65536) % 6
end

local function event()
  local install = math.random(0, 999999)
  local now = os.time()
  local timestamp = ""
  local at = now
  if late_share > 0 and math.random() < late_share then
    -- os.time() is whole seconds, up to one behind the clock: the event is
    -- at least a day late, and at most 30 days and under a second.
    local ms = now * 1000 - math.random(day_ms, 30 * day_ms)
    at = math.floor(ms / 1000)
    timestamp = string.format('"timestamp":"%s.%03dZ",',
      os.date("!%Y-%m-%dT%H:%M:%S", at), ms - at * 1000)
  end
  local minor, os_minor = versions(install, at)
  return string.format(
    '{"id":"%s",%s"updateId":"782000001589%03d","action":"%s","appVersion":"2.%d.0",' ..
    '"installId":"%08x","platform":"ios","osVersion":"17.%d"}',
    uuid4(), timestamp, math.random(0, 99), actions[math.random(1, #actions)], minor, install,
    os_minor)
end

function request()
  local events = {}
  for i = 1, per_request do events[i] = event() end
  return wrk.format(nil, nil, nil, '{"events":[' .. table.concat(events, ",") .. ']}')
end

if events_per_second then
  -- wrk asks before each request how long to wait; the wait keeps the
  -- thread's requests on a schedule from its first one (LuaJIT's ffi reads
  -- the monotonic clock), so answers' own time does not lower the rate.
  local ffi = require("ffi")
  pcall(ffi.cdef, [[
    typedef struct { long tv_sec; long tv_nsec; } events_lua_timespec;
    int clock_gettime(int clock, events_lua_timespec *time);
  ]])
  local clock = ffi.new("events_lua_timespec")
  local function now_ms()
    ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
    return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
  end
  local started, sent = nil, 0
  function delay()
    local now = now_ms()
    started = started or now
    local due = started + 1000 * sent / events_per_second
    sent = sent + per_request
    return math.max(0, math.floor(due - now))
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("requests/s: %.0f\n", summary.requests / seconds))
  io.write(string.format("events/s: %.0f\n", summary.requests * per_request / seconds))
  io.write(string.format("latency p50: %.2f ms  p99: %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
  io.write(string.format("non-2xx or socket errors: %d\n",
    summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
end
