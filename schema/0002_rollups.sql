-- Report aggregates. Ingest only appends events; the writer folds them into
-- these tables in sorted bulk steps between batches (RollupFolder.swift),
-- and records how far it got as store_state 'rollup_folded_seq'. Reports
-- read the aggregates and add the few events not folded yet, so they are
-- exact at every moment. Every table leads with (app_no, is_test) so each
-- test filter reads one contiguous range. Days and hours are numbers since
-- 1970-01-01 UTC; install_key is StableHash.installKey(app_no, installId).

-- Events, distinct installs and first/last event time per update, hour and
-- action.
CREATE TABLE hourly_counts (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  action INTEGER NOT NULL,
  events INTEGER NOT NULL,
  installs INTEGER NOT NULL,
  first_ts INTEGER NOT NULL,
  last_ts INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, update_id, hour, action)
) WITHOUT ROWID;

-- The same per day.
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

-- The installs behind hourly_counts.installs.
CREATE TABLE hourly_installs (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  action INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, update_id, hour, action, install_key)
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

-- Adoption: the installs seen per day and version (any update, any action)...
CREATE TABLE version_installs (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  install_key INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day, app_version, install_key)
) WITHOUT ROWID;

CREATE TABLE daily_versions (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  installs INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day, app_version)
) WITHOUT ROWID;

-- ...and per day on any version, the denominator of each version's share.
CREATE TABLE active_installs (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day, install_key)
) WITHOUT ROWID;

CREATE TABLE daily_active (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  installs INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, day)
) WITHOUT ROWID;

-- The first time each install was seen on each version: the funnel's
-- upgrades, looked up for the installs that downloaded.
CREATE TABLE install_versions (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  first_ts INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, install_key, app_version)
) WITHOUT ROWID;
