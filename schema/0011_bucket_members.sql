-- daily_installs kept a row per install and bucket (app, test flag, update,
-- day, action): about 60 bytes, the update id's text in every key, and a
-- last_ts the fold rewrote whenever an install came back to its bucket. Its
-- readers only ask whether an install is a member of a bucket (the fold, to
-- count it once; the grouped report, for unfolded installs) and, in
-- impression buckets, when and on which version it was first seen (the
-- funnel's cohort). Buckets are numbered once here, and a member is its
-- bucket's number and install key, with the first impression's time and
-- version only where the bucket is one of impressions: about 25 bytes, so
-- the fold's random inserts dirty fewer pages (docs/profile-ingest.md).
CREATE TABLE daily_buckets (
  bucket_no INTEGER PRIMARY KEY,
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  action INTEGER NOT NULL,
  UNIQUE (app_no, is_test, update_id, day, action)
);

CREATE TABLE bucket_members (
  bucket_no INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  first_ts INTEGER,
  first_version TEXT,
  PRIMARY KEY (bucket_no, install_key)
) WITHOUT ROWID;

-- Numbered in daily_installs' key order, the buckets read in number order
-- bring its rows in bucket_members' key order, so they are appended without
-- a sort.
INSERT INTO daily_buckets (app_no, is_test, update_id, day, action)
SELECT DISTINCT app_no, is_test, update_id, day, action FROM daily_installs
ORDER BY app_no, is_test, update_id, day, action;

INSERT INTO bucket_members (bucket_no, install_key, first_ts, first_version)
SELECT b.bucket_no, d.install_key,
  CASE WHEN d.action = 0 THEN d.first_ts END, CASE WHEN d.action = 0 THEN d.first_version END
FROM daily_buckets AS b
JOIN daily_installs AS d
  ON d.app_no = b.app_no AND d.is_test = b.is_test AND d.update_id = b.update_id
  AND d.day = b.day AND d.action = b.action
ORDER BY b.bucket_no, d.install_key;

DROP TABLE daily_installs;
