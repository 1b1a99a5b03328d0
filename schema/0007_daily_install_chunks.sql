-- The members of each daily_installs bucket (app, test flag, update, day,
-- action) packed into blobs, so one update's distinct installs over a range
-- read a few hundred rows instead of one row per install and day: SQLite
-- spends ~120 ns stepping a row whatever its width, and /v1/updates/{id}
-- over 30 days of a busy update stepped 115k rows (14 ms of its ~20).
--
-- `packed` holds `entries` install keys, 8 bytes each, little-endian, in
-- the order they were folded; each key once per bucket (the fold adds a key
-- when its daily_installs row is new). Chunks are numbered from 0 and hold
-- at most 512 keys; the fold fills the last one before starting the next
-- (InstallChunks.swift), so a bucket of n installs has ceil(n / 512) rows.
CREATE TABLE daily_install_chunks (
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

-- Databases from before this migration: pack the members already folded,
-- read in key order so each bucket's rows come together.
INSERT INTO daily_install_chunks
SELECT app_no, is_test, update_id, day, action, (position - 1) / 512, count(*),
  uptake_pack(install_key)
FROM (
  SELECT app_no, is_test, update_id, day, action, install_key,
    row_number() OVER (PARTITION BY app_no, is_test, update_id, day, action) AS position
  FROM daily_installs
)
GROUP BY app_no, is_test, update_id, day, action, (position - 1) / 512;
