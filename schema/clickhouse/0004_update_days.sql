-- What /v1/updates and /v1/updates/{id} read: each app's events and
-- installs by day, update and action, kept as events arrive (a view over
-- each server's events_local) rather than scanned for every report.
--
-- Exact in any arrival order and however often an event arrives: the
-- events of a group are the distinct ids of its events and its installs
-- the distinct installIds (uniqExact's states merge as sets), so an event
-- shipped twice, or retried to another node, counts once before
-- ReplacingMergeTree has merged the copies away, and first and last seen
-- are a min and a max. An event without an installId counts in events,
-- not installs. A shard's states hold only its installs (events are
-- sharded by install), so `update_days` merges them across shards.
CREATE TABLE IF NOT EXISTS {database}.update_days_local (
  app_id String,
  is_test UInt8,
  day Date,
  update_id String,
  action Enum8('impression' = 0, 'download' = 1, 'later' = 2, 'ignore' = 3),
  ids AggregateFunction(uniqExact, String),
  installs AggregateFunction(uniqExactIf, String, UInt8),
  first_ms AggregateFunction(min, Int64),
  last_ms AggregateFunction(max, Int64)
) ENGINE = AggregatingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (app_id, is_test, day, update_id, action);

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.update_days_view
TO {database}.update_days_local AS
SELECT app_id, is_test, day, update_id, action,
  uniqExactState(id) AS ids,
  uniqExactIfState(install_id, install_id != '') AS installs,
  minState(ts_ms) AS first_ms,
  maxState(ts_ms) AS last_ms
FROM {database}.events_local
GROUP BY app_id, is_test, day, update_id, action;

-- The events already stored when this migration runs. One that arrives
-- while it runs may be counted by the view and by this too: a state
-- merges it once.
INSERT INTO {database}.update_days_local
SELECT app_id, is_test, day, update_id, action,
  uniqExactState(id), uniqExactIfState(install_id, install_id != ''),
  minState(ts_ms), maxState(ts_ms)
FROM {database}.events_local
GROUP BY app_id, is_test, day, update_id, action;

CREATE TABLE IF NOT EXISTS {database}.update_days AS {database}.update_days_local
ENGINE = {update_days_engine};
