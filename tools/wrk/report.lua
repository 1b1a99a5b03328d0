-- wrk script: GET one report path with the read key, and print its latency
-- percentiles; non-2xx answers are counted as errors.
--   UPTAKE_READ_KEY=upr_… REPORT_PATH=/v1/updates wrk -t1 -c4 -d15s -s tools/wrk/report.lua URL
local key = os.getenv("UPTAKE_READ_KEY") or error("set UPTAKE_READ_KEY")
local path = os.getenv("REPORT_PATH") or "/v1/updates"

function init(args)
  wrk.method = "GET"
  wrk.path = path
  wrk.headers["Authorization"] = "Bearer " .. key
end

function done(summary, latency, requests)
  io.write(string.format("%s  requests: %d  p50: %.2f ms  p99: %.2f ms  max: %.2f ms  errors: %d\n",
    path, summary.requests, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
end
