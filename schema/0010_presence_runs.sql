-- install_presence (0005) as sorted runs packed into blobs. The fold wrote
-- a B-tree row per install and day at a random page of the day, about one
-- write per folded event (13 % of the writer's time under sustained
-- 100-event batches), and a report read 2.1M rows for 30 days of the
-- 10.4M-event benchmark database at ~0.3 µs each (0.6 s for
-- groupBy=date,appVersion). Now each fold appends, for each (app, test
-- flag, day) it touches, one run of that day's rows, sorted by install
-- and dimension set; a report merges a day's runs in that order, so an
-- install's rows of a day still meet the counter together
-- (PresenceCounter.swift).
--
-- `packed` holds `entries` entries (PresenceRuns.swift): the install key,
-- 8 bytes little-endian; dims_no as LEB128; a byte with bit a set when
-- action a (impression, download, later, ignore) has hours; then for each
-- such action its hour bits (bit h for hour h of the day) in 3 bytes,
-- little-endian. An install may appear in several runs of a day; readers
-- take the union of its hours. Runs are numbered from 0 per day. Once a
-- day has 8 runs under 32,768 entries, the fold merges those into one, so
-- a day has a few runs whatever the ingest pattern.
CREATE TABLE presence_runs (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  run INTEGER NOT NULL,
  entries INTEGER NOT NULL,
  packed BLOB NOT NULL,
  PRIMARY KEY (app_no, is_test, day, run)
);

-- Databases from before: one run per day of the rows folded so far
-- (uptake_pack_presence sorts each day's entries itself).
INSERT INTO presence_runs
SELECT app_no, is_test, day, 0, count(*),
  uptake_pack_presence(install_key, dims_no, impression_hours, download_hours, later_hours,
    ignore_hours)
FROM install_presence
GROUP BY app_no, is_test, day;

DROP TABLE install_presence;
