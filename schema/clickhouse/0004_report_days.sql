-- What every report but an hourly one reads (/v1/updates, /v1/updates/{id},
-- /v1/report by day or without a date, /v1/adoption): each app's events
-- and installs by day and every key a report groups by, kept as events
-- arrive (a view over each server's events_local) rather than scanned for
-- every report.
--
-- Exact in any arrival order and however often an event arrives: the
-- events of a group are the distinct ids of its events and its installs
-- the distinct installIds (uniqExact's states merge as sets), so an event
-- shipped twice, or retried to another node, counts once before
-- ReplacingMergeTree has merged the copies away; first and last seen are
-- a min and a max. An event without an installId counts in events, not
-- installs. A shard's states hold only its installs (events are sharded by
-- install), so each shard finishes its own groups.
--
-- The sets hold sipHash64 of each id and installId, the width one box
-- gives its own install and dedup keys (StableHash: two installs of an app
-- share a key with a chance of about 3 in 10^8 at a million installs): a
-- set of them merged about twice as fast as uniqExact of the text, which
-- keeps 128-bit hashes. A row a day and every grouping key, not a row a
-- day, update and action: many small sets merged faster than few large
-- ones (a shard's events by day, update and action over 30 days: 0.085-0.10
-- s against 0.21-0.25 s; docs/performance.md, session 24).
--
-- `day` is the events' UTC day; a sorting key cannot be Nullable, so a
-- missing platform or osVersion is kept as '', which no event can send
-- (both are 1 or more characters).
CREATE TABLE IF NOT EXISTS {database}.report_days_local (
  app_id String,
  is_test UInt8,
  day Date,
  update_id String,
  action Enum8('impression' = 0, 'download' = 1, 'later' = 2, 'ignore' = 3),
  app_version String,
  platform String,
  os_version String,
  ids AggregateFunction(uniqExact, UInt64),
  installs AggregateFunction(uniqExactIf, UInt64, UInt8),
  first_ms AggregateFunction(min, Int64),
  last_ms AggregateFunction(max, Int64)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (app_id, is_test, day, update_id, action, app_version, platform, os_version);

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.report_days_view
TO {database}.report_days_local AS
SELECT app_id, is_test, day, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)) AS ids,
  uniqExactIfState(sipHash64(install_id), install_id != '') AS installs,
  minState(ts_ms) AS first_ms,
  maxState(ts_ms) AS last_ms
FROM {database}.events_local
GROUP BY app_id, is_test, day, update_id, action, app_version, platform, os_version;

-- The events already stored when this migration runs. One that arrives
-- while it runs may be counted by the view and by this too: a state
-- merges it once.
INSERT INTO {database}.report_days_local
SELECT app_id, is_test, day, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)), uniqExactIfState(sipHash64(install_id), install_id != ''),
  minState(ts_ms), maxState(ts_ms)
FROM {database}.events_local
GROUP BY app_id, is_test, day, update_id, action, app_version, platform, os_version;

CREATE TABLE IF NOT EXISTS {database}.report_days AS {database}.report_days_local
ENGINE = {report_days_engine};
