-- The funnel exact in any arrival order (issue 21). The download links of
-- 0004/0009 followed an install's version changes, which only hold when
-- its events arrive in time order; a funnel's `upgraded` then changed with
-- the network. Now:
--
-- install_days keeps every distinct time the install was seen on the
-- version that day, with the updates it downloaded at each (`times`,
-- Rollups/SeenTimes.swift), so the fold can work out any download's links
-- again from the rows alone, whatever arrives late.
--
-- funnel_downloads keeps every download time of the row (`downloads`,
-- Rollups/DownloadTimes.swift), so a funnel takes the first at or after the
-- first impression, and the events after them that rise above every event
-- between (`rises`, Rollups/Rises.swift), where the first event after a
-- download on a version above any given one always is.
--
-- version_changes is gone: nothing reads it any more. The old rows cannot
-- be converted (they lack the times), so the rollups are folded again from
-- the events (RollupsFile.format).
DROP TABLE IF EXISTS version_changes;
DROP TABLE IF EXISTS funnel_downloads;
DROP TABLE IF EXISTS install_days;

CREATE TABLE install_days (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  first_ts INTEGER NOT NULL,
  times BLOB NOT NULL,
  PRIMARY KEY (app_no, is_test, install_key, day, app_version)
) WITHOUT ROWID;

CREATE TABLE funnel_downloads (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  downloads BLOB NOT NULL,
  rises BLOB NOT NULL,
  PRIMARY KEY (app_no, is_test, update_id, day, install_key)
) WITHOUT ROWID;

INSERT OR REPLACE INTO store_state (name, value) VALUES ('rollups_refold', 1);
