-- A fold that keeps up with the exact funnel (issue 21). 0016 kept every
-- time an install was seen in its install_days row, so every event of an
-- install already seen that day rewrote the row: a SQLite row write for
-- nearly every event of a flood, where the fold before it wrote one for each
-- new install, day and version, and the batch ingest it sets the pace of
-- fell below its bar (docs/performance.md).
--
-- The times move to day_times, one row for many installs of a day
-- (Rollups/DayTimes.swift): a step writes each of those rows once however
-- many of its installs it touches. install_days keeps a row for each
-- install, day and version with its first time, and whether the install
-- downloaded anything on it: the fold and the funnel read the times of a
-- day only where they can change an answer (the days of a step's events,
-- of downloads, of a download being followed), and the first time
-- elsewhere (Fold/InstallTimelines.swift).
--
-- The rows folded so far hold their times in the old place, so the rollups
-- are folded again from the events (RollupsFile.place).
DROP TABLE IF EXISTS install_days;

CREATE TABLE install_days (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  first_ts INTEGER NOT NULL,
  downloaded INTEGER NOT NULL,
  PRIMARY KEY (app_no, is_test, install_key, day, app_version)
) WITHOUT ROWID;

CREATE TABLE day_times (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  install_from INTEGER NOT NULL,
  bits INTEGER NOT NULL,
  packed BLOB NOT NULL,
  PRIMARY KEY (app_no, is_test, day, install_from)
) WITHOUT ROWID;

INSERT OR REPLACE INTO store_state (name, value) VALUES ('rollups_refold', 1);
