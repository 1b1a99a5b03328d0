-- Each impression bucket's first impressions packed like
-- daily_install_chunks (schema/0007), for the funnel's cohort: a funnel
-- read 64k daily_installs rows for the bench's busiest update over 30 days,
-- most of its time (docs/profile-funnel.md).
--
-- An entry is the install key and its first impression's time (8 bytes
-- each, little-endian), then the version's length (one byte) and UTF-8
-- bytes: daily_installs' install_key, first_ts and first_version of an
-- impression row. The fold adds one when the row is new, and another when
-- its first impression moves earlier (events arriving out of order);
-- readers keep each install's earliest. `action` is always 0: the key has
-- daily_install_chunks' columns, so one writer serves both.
CREATE TABLE funnel_impression_chunks (
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

-- Databases from before this migration: pack the impressions already folded.
INSERT INTO funnel_impression_chunks
SELECT app_no, is_test, update_id, day, action, (position - 1) / 512, count(*),
  uptake_pack(install_key, first_ts, first_version)
FROM (
  SELECT app_no, is_test, update_id, day, action, install_key, first_ts, first_version,
    row_number() OVER (PARTITION BY app_no, is_test, update_id, day, action) AS position
  FROM daily_installs WHERE action = 0
)
GROUP BY app_no, is_test, update_id, day, action, (position - 1) / 512;
