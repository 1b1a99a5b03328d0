-- Report aggregates. Ingest only appends events; the writer folds them into
-- these tables in sorted bulk steps between batches (RollupFolder.swift),
-- and records how far it got as store_state 'rollup_folded_seq'. Reports
-- read the aggregates and add the few events not folded yet, so they are
-- exact at every moment. Every table leads with (app_no, is_test) so each
-- test filter reads one contiguous range. Days and hours are numbers since
-- 1970-01-01 UTC; install_key is StableHash.installKey(app_no, installId).

-- Events, distinct installs and first/last event time per update, day and
-- action. (Hour-granularity reports read the events of their range: they
-- span a day or two, and hourly presence rows would cost ingest one more
-- write per event.)
CREATE TABLE daily_counts (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  action INTEGER NOT NULL,
  events INTEGER NOT NULL,
  installs INTEGER NOT NULL,
  first_ts INTEGER NOT NULL,
  last_ts INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, update_id, day, action)
) WITHOUT ROWID;

-- The installs behind daily_counts.installs, with each install's first
-- event of the day (time and version) and last event time: distinct
-- installs over several days, and the funnel's impressions and downloads.
CREATE TABLE daily_installs (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  action INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  first_ts INTEGER NOT NULL,
  first_version TEXT NOT NULL,
  last_ts INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, update_id, day, action, install_key)
) WITHOUT ROWID;

-- The days and versions each install was seen on (any update, any
-- action), with the first time: adoption counts, and the funnel's upgrades
-- (looked up per install that downloaded).
CREATE TABLE install_days (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  first_ts INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, install_key, day, app_version)
) WITHOUT ROWID;

-- Adoption: distinct installs per day and version...
CREATE TABLE daily_versions (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  installs INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day, app_version)
) WITHOUT ROWID;

-- ...and per day on any version, the denominator of each version's share.
CREATE TABLE daily_active (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  installs INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day)
) WITHOUT ROWID;

-- Each time an install was first seen on a higher version than the one it
-- was seen on before: the funnel's upgrades. Keyed by the version left, so
-- a funnel reads only the upgrades away from its impressions' versions
-- instead of looking up every install that downloaded.
CREATE TABLE version_changes (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  from_version TEXT NOT NULL,
  day INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  to_version TEXT NOT NULL,
  ts INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, from_version, day, install_key, to_version)
) WITHOUT ROWID;
