-- The aggregates again, cheaper to read (docs/performance.md, session
-- 24). 0004's and 0005's states held event ids and installIds as text,
-- which uniqExact keeps as 128-bit hashes; merging millions of them per
-- report took most of its time. These hold sipHash64 of each, the width
-- one box gives its own install and dedup keys (StableHash: two installs
-- of an app share a key with a chance of about 3 in 10^8 at a million
-- installs), and a set merges about twice as fast.
--
-- Every report but an hourly one now reads `report_days`: a row a day and
-- every grouping key, where `report_hours` has up to 24 and 0004's
-- `update_days` had one a day, update and action. Many small sets merged
-- faster than few large ones (a shard's events by day, update and action
-- over 30 days: 0.085-0.10 s from report_days, 0.21-0.25 s from a table
-- like update_days), and one table fewer is one view fewer on each insert.
--
-- Sets merge idempotently: an event the views count while the backfills
-- below count it too is counted once. Between the DROPs and the backfills
-- a report over these tables fails or reads less, for the seconds the
-- migration runs at a node's start.
DROP TABLE IF EXISTS {database}.update_days_view;
DROP TABLE IF EXISTS {database}.update_days;
DROP TABLE IF EXISTS {database}.update_days_local;
DROP TABLE IF EXISTS {database}.report_hours_view;
DROP TABLE IF EXISTS {database}.report_hours;
DROP TABLE IF EXISTS {database}.report_hours_local;

-- By hour, for /v1/report?granularity=hour. `hour` is hours since 1970
-- (UTC); a missing platform or osVersion is kept as '' (0005).
CREATE TABLE IF NOT EXISTS {database}.report_hours_local (
  app_id String,
  is_test UInt8,
  hour Int64,
  update_id String,
  action Enum8('impression' = 0, 'download' = 1, 'later' = 2, 'ignore' = 3),
  app_version String,
  platform String,
  os_version String,
  ids AggregateFunction(uniqExact, UInt64),
  installs AggregateFunction(uniqExactIf, UInt64, UInt8)
) ENGINE = AggregatingMergeTree()
PARTITION BY intDiv(hour, 24 * 30)
ORDER BY (app_id, is_test, hour, update_id, action, app_version, platform, os_version);

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.report_hours_view
TO {database}.report_hours_local AS
SELECT app_id, is_test, intDiv(ts_ms, 3600000) AS hour, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)) AS ids,
  uniqExactIfState(sipHash64(install_id), install_id != '') AS installs
FROM {database}.events_local
GROUP BY app_id, is_test, hour, update_id, action, app_version, platform, os_version;

INSERT INTO {database}.report_hours_local
SELECT app_id, is_test, intDiv(ts_ms, 3600000) AS hour, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)), uniqExactIfState(sipHash64(install_id), install_id != '')
FROM {database}.events_local
GROUP BY app_id, is_test, hour, update_id, action, app_version, platform, os_version;

CREATE TABLE IF NOT EXISTS {database}.report_hours AS {database}.report_hours_local
ENGINE = {report_hours_engine};

-- By day: /v1/updates, /v1/updates/{id}, /v1/report by day or without a
-- date, /v1/adoption.
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

INSERT INTO {database}.report_days_local
SELECT app_id, is_test, day, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)), uniqExactIfState(sipHash64(install_id), install_id != ''),
  minState(ts_ms), maxState(ts_ms)
FROM {database}.events_local
GROUP BY app_id, is_test, day, update_id, action, app_version, platform, os_version;

CREATE TABLE IF NOT EXISTS {database}.report_days AS {database}.report_days_local
ENGINE = {report_days_engine};
