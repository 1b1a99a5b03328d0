-- funnel_downloads' rows packed 512 to a row, as the impressions are
-- (schema/0008): a funnel stepped one row per install and day with a
-- download, and SQLite's cost is per row stepped. The bench's busiest
-- update has 22,590 such rows over 30 days; stepping them took 13 of its
-- funnel's 33 ms (docs/performance.md, session 25).
--
-- An entry is the install key (8 bytes, little-endian), then the
-- row's `downloads` and `rises` blobs (Rollups/DownloadTimes.swift,
-- Rollups/Rises.swift), each after its length (LEB128):
-- Rollups/DownloadRow.swift. The fold appends an entry whenever it works
-- an install's row out again (a new download, or an event rising after
-- one), and never rewrites the entries before it, so an install may have
-- several entries in a bucket, the newest holding every download time.
-- Readers take them all: an older entry's downloads are among the newer's,
-- and its rises are events the install sent after a download, so the
-- first download at or after an impression, and the first upgrade after
-- it, are the same whichever entries are read with the newest.
-- `action` is always 1 (download): the key has funnel_impression_chunks'
-- columns, so one writer serves both.
--
-- The rows folded so far are not packed here: the rollups are folded
-- again from the events instead (RollupsFile.refoldName), as in 0016, so
-- the fold's one writer is the only one (its time on a large database:
-- docs/operations.md).
DROP TABLE IF EXISTS funnel_downloads;

CREATE TABLE funnel_download_chunks (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  action INTEGER NOT NULL,
  chunk INTEGER NOT NULL,
  entries INTEGER NOT NULL,
  packed BLOB NOT NULL,
  PRIMARY KEY (app_no, is_test, update_id, day, action, chunk)
);

INSERT OR REPLACE INTO store_state (name, value) VALUES ('rollups_refold', 1);
