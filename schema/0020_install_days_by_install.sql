-- install_days keyed by install first. The fold rewrites an install's row
-- of the day for nearly every install a step brings, and each write seeks
-- the key from the root. With app_no and is_test first, equal in nearly
-- every row, each comparison of the seek went past two equal columns on
-- SQLite's general path; with the install key first, SQLite compares its
-- integer and nearly always decides there. Rewriting rows so took about
-- 30 % less time (docs/performance.md, session 31).
--
-- Readers give the app, test flag and install, or the app and a range of
-- days (the adoption counts with test=include, which scan the table).
--
-- The rows folded so far are not copied: the rollups are folded again from
-- the events (RollupsFile.refoldName), as in 0016 and 0019.
DROP TABLE IF EXISTS install_days;

CREATE TABLE install_days (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  day INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  first_ts INTEGER NOT NULL,
  times BLOB NOT NULL,
  PRIMARY KEY (install_key, app_no, is_test, day, app_version)
) WITHOUT ROWID;

INSERT OR REPLACE INTO store_state (name, value) VALUES ('rollups_refold', 1);
