-- How many events each row of report_days has taken in, kept in the row
-- itself: what tells a node that a day's aggregates have not changed
-- since it last read them, so that it can answer that day from memory
-- (UptakeCluster/Reports/ReportDayCache.swift) instead of merging its
-- sets of ids and installIds again.
--
-- The count sits in the same part as the sets it describes, so a reader
-- never sees one without the other; it grows with every event a row
-- takes in (a duplicate too) and merges keep it. A separate counting
-- table would be written by its own view, in an order ClickHouse does
-- not promise, and chained views (a view over report_days_local) do not
-- fire in 18.16.
--
-- 18.16 cannot change a view's query, nor ADD COLUMN IF NOT EXISTS: the
-- column is added unless the table has it (ClusterSchema skips an ADD
-- COLUMN the table already has), the counting view made, then the old
-- view dropped. An event inserted between the two is aggregated by
-- both: its sets and times merge to the same, and its count is only
-- higher, which at most makes a node read that day again.
ALTER TABLE {database}.report_days_local ADD COLUMN inserts AggregateFunction(count);

ALTER TABLE {database}.report_days ADD COLUMN inserts AggregateFunction(count);

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.report_days_counted_view
TO {database}.report_days_local AS
SELECT app_id, is_test, day, update_id, action, app_version,
  ifNull(platform, '') AS platform, ifNull(os_version, '') AS os_version,
  uniqExactState(sipHash64(id)) AS ids,
  uniqExactIfState(sipHash64(install_id), install_id != '') AS installs,
  minState(ts_ms) AS first_ms,
  maxState(ts_ms) AS last_ms,
  countState() AS inserts
FROM {database}.events_local
GROUP BY app_id, is_test, day, update_id, action, app_version, platform, os_version;

DROP TABLE IF EXISTS {database}.report_days_view;
