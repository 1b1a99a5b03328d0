-- Aggregates for grouped reports by hour and by appVersion, platform and
-- osVersion (GET /v1/report, uptake export and uptake report), which read
-- the raw events of their range before: seconds and 160 MiB at 10M events.
-- Kept by the same fold as 0002_rollups.sql (RollupFolder.swift,
-- DimensionFold.swift); reports add the unfolded events, so they stay exact.
--
-- The design, with the figures of the 10.4M-event benchmark database
-- (1M installs, 100 updates, 89 days):
--
-- * A dimension set is one (update, appVersion, platform, osVersion) an
--   app's events carried: ~21k of them. The tables below refer to it by
--   number, so their rows are a few integers and a report maps each number
--   to its group once, not once per row.
-- * Event counts are additive, so one row per (hour, dimension set, action)
--   answers any grouping by summing (1.4M rows), and one per day (151k
--   rows) answers day granularity with 24 times fewer rows.
-- * Distinct installs are not additive. install_presence keeps one row per
--   install, day and dimension set (5.8M rows, about one per install and
--   day: each action's hours are a bitmask column of the same row rather
--   than a row per action, which would double the rows, or per hour, which
--   would add one row per event). The table is ordered by day and then
--   install, so a report walks each install's rows of a day together: when
--   the grouping has the date (or the range is one day), a group's installs
--   are the runs that touch it, counted once per run, with no set of
--   installs held at all; other groupings collect each group's installs.
--   The day is the natural unit: ranges are whole days, and an hourly row
--   per install would cost a write per event on the fold.
--
-- The fold writes each touched row once per fold, in key order; time-ordered
-- ingest touches the newest days only. Days and hours are numbers since
-- 1970-01-01 UTC; install_key is StableHash.installKey(app_no, installId).

CREATE TABLE dimension_sets (
  dims_no INTEGER PRIMARY KEY,
  app_no INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  app_version TEXT NOT NULL,
  platform TEXT,
  os_version TEXT
);

-- The fold looks up the sets of its events (IS matches a missing platform
-- or OS version too); the single writer keeps them unique.
CREATE INDEX dimension_sets_by_value
  ON dimension_sets (app_no, update_id, app_version, platform, os_version);

CREATE TABLE hourly_dimension_counts (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  dims_no INTEGER NOT NULL,
  action INTEGER NOT NULL,
  events INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, hour, dims_no, action)
) WITHOUT ROWID;

CREATE TABLE daily_dimension_counts (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  dims_no INTEGER NOT NULL,
  action INTEGER NOT NULL,
  events INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day, dims_no, action)
) WITHOUT ROWID;

-- Bit h of <action>_hours is set when the install had that action with that
-- dimension set in hour h (0–23) of the day; 0 when it had none.
CREATE TABLE install_presence (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  dims_no INTEGER NOT NULL,
  impression_hours INTEGER NOT NULL,
  download_hours INTEGER NOT NULL,
  later_hours INTEGER NOT NULL,
  ignore_hours INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day, install_key, dims_no)
) WITHOUT ROWID;

-- Backfill: the events folded already (the fold takes the rest, as any
-- unfolded events). One pass over the events into a temporary table, then
-- one sort per table: 66 s of CPU for 10.4M events (2.6 min of wall time at
-- a load of 9), once, when the daemon or CLI first opens an upgraded
-- database; the file grows by 8 % (2.63 to 2.85 GB). Actions outside 0–3 are skipped, as the fold skips
-- them; a sum of distinct powers of two is their bitwise OR.
CREATE TEMP TABLE folded_events (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  action INTEGER NOT NULL,
  install_key INTEGER,
  dims_no INTEGER NOT NULL
);

INSERT INTO dimension_sets (app_no, update_id, app_version, platform, os_version)
SELECT DISTINCT app_no, update_id, app_version, platform, os_version FROM events
WHERE seq <= coalesce((SELECT value FROM store_state WHERE name = 'rollup_folded_seq'), 0)
  AND action BETWEEN 0 AND 3
ORDER BY 1, 2, 3, 4, 5;

INSERT INTO temp.folded_events
SELECT e.app_no, e.is_test, e.ts, e.action, uptake_install_key(e.app_no, e.install_id), d.dims_no
FROM events e
JOIN dimension_sets d ON d.app_no = e.app_no AND d.update_id = e.update_id
  AND d.app_version = e.app_version AND d.platform IS e.platform
  AND d.os_version IS e.os_version
WHERE e.seq <= coalesce((SELECT value FROM store_state WHERE name = 'rollup_folded_seq'), 0)
  AND e.action BETWEEN 0 AND 3;

INSERT INTO hourly_dimension_counts (app_no, is_test, hour, dims_no, action, events)
SELECT app_no, is_test, ts / 3600000, dims_no, action, count(*) FROM temp.folded_events
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO daily_dimension_counts (app_no, is_test, day, dims_no, action, events)
SELECT app_no, is_test, hour / 24, dims_no, action, sum(events) FROM hourly_dimension_counts
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO install_presence (app_no, is_test, day, install_key, dims_no, impression_hours,
  download_hours, later_hours, ignore_hours)
SELECT app_no, is_test, ts / 86400000, install_key, dims_no,
  sum(DISTINCT CASE action WHEN 0 THEN 1 << (ts / 3600000 % 24) ELSE 0 END),
  sum(DISTINCT CASE action WHEN 1 THEN 1 << (ts / 3600000 % 24) ELSE 0 END),
  sum(DISTINCT CASE action WHEN 2 THEN 1 << (ts / 3600000 % 24) ELSE 0 END),
  sum(DISTINCT CASE action WHEN 3 THEN 1 << (ts / 3600000 % 24) ELSE 0 END)
FROM temp.folded_events WHERE install_key IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;

DROP TABLE temp.folded_events;
