-- Each app's installs by day, version, platform and OS version alone:
-- what a report grouped by those keys and not by date reads for its
-- distinct installs (ClusterReports.dailyGroups). Its events come from
-- report_days, remembered by day; its installs are a union over the
-- range, merged again for every report, and an install's events of a
-- day under several updates and actions are one entry here where
-- report_days holds one in each of their rows: over the bench's last 30
-- days, 1.07M entries a shard against 1.93M.
--
-- As report_days (0004), exact in any arrival order and however often
-- an event arrives: the sets merge as sets.
CREATE TABLE IF NOT EXISTS {database}.report_day_installs_local (
  app_id String,
  is_test UInt8,
  day Date,
  app_version String,
  platform String,
  os_version String,
  installs AggregateFunction(uniqExactIf, UInt64, UInt8)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (app_id, is_test, day, app_version, platform, os_version);

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.report_day_installs_view
TO {database}.report_day_installs_local AS
SELECT app_id, is_test, day, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactIfState(sipHash64(install_id), install_id != '') AS installs
FROM {database}.events_local
GROUP BY app_id, is_test, day, app_version, platform, os_version;

-- The events already stored when this migration runs (see 0004). Run
-- again after a stop, it adds what the sets hold already.
INSERT INTO {database}.report_day_installs_local
SELECT app_id, is_test, day, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactIfState(sipHash64(install_id), install_id != '')
FROM {database}.events_local
GROUP BY app_id, is_test, day, app_version, platform, os_version;

CREATE TABLE IF NOT EXISTS {database}.report_day_installs AS {database}.report_day_installs_local
ENGINE = {report_day_installs_engine};
