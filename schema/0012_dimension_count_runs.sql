-- Event counts by hour, dimension set and action as runs, like presence
-- (0010): each fold appends one packed run per app, test flag and day it
-- touches, and reports sum a range's runs. hourly_dimension_counts and
-- daily_dimension_counts took two upserts per distinct hour, dimension set
-- and action of each fold, about one B-tree write per folded event under
-- sustained ingest (docs/profile-ingest.md). A day's counts are the sum of
-- its hours, so the daily table goes with the hourly one.
CREATE TABLE dimension_count_runs (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  day INTEGER NOT NULL,
  run INTEGER NOT NULL,
  entries INTEGER NOT NULL,
  packed BLOB NOT NULL,
  PRIMARY KEY (app_no, is_test, day, run)
);

-- Hours before 1970 are negative: their day is the floor of hour / 24.
INSERT INTO dimension_count_runs (app_no, is_test, day, run, entries, packed)
SELECT app_no, is_test, day, 0, count(*),
  uptake_pack_counts(dims_no, action, hour - day * 24, events)
FROM (
  SELECT app_no, is_test, CASE WHEN hour >= 0 THEN hour / 24 ELSE (hour - 23) / 24 END AS day,
    hour, dims_no, action, events
  FROM hourly_dimension_counts
)
GROUP BY app_no, is_test, day;

DROP TABLE hourly_dimension_counts;
DROP TABLE daily_dimension_counts;
