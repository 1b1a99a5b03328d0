-- What /v1/report?granularity=hour reads: as 0004_report_days.sql, by
-- hour. `hour` is hours since 1970 (UTC, as the events' days are).
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

-- The events already stored when this migration runs (see 0004).
INSERT INTO {database}.report_hours_local
SELECT app_id, is_test, intDiv(ts_ms, 3600000) AS hour, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)), uniqExactIfState(sipHash64(install_id), install_id != '')
FROM {database}.events_local
GROUP BY app_id, is_test, hour, update_id, action, app_version, platform, os_version;

CREATE TABLE IF NOT EXISTS {database}.report_hours AS {database}.report_hours_local
ENGINE = {report_hours_engine};
