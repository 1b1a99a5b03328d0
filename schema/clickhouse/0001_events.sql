-- Events as the cluster keeps them: a local table on every server (each
-- shard holds the events of the installs its key sends it), and `events`,
-- the table every node reads and writes, which spreads them over the
-- shards, or, on one server, is the local table itself.
--
-- Written for ClickHouse 18.16 (Debian 12) as for current releases: no
-- DateTime64, no TTL, no CTEs. {database}, {cluster} and {events_engine}
-- are filled in by uptaked (UptakeCluster/ClusterSchema.swift).
--
-- Retries and the same event shipped twice (a node that shipped, failed
-- to record it, and shipped again; a client that retried to another node)
-- land on the same shard, because the sharding key is the install (or the
-- event's id without one), and in the same sorting key: ReplacingMergeTree
-- folds them into one in its merges, and reports count distinct ids until
-- it has. An event sent without an id is given one by the node that took
-- it (the node's id and the event's sequence number in its spool), so it
-- is kept once per acceptance, as one box keeps it.

CREATE TABLE IF NOT EXISTS {database}.events_local (
  app_id String,
  id String,
  update_id String,
  action Enum8('impression' = 0, 'download' = 1, 'later' = 2, 'ignore' = 3),
  app_version String,
  install_id String,
  platform Nullable(String),
  os_version Nullable(String),
  previous_app_version Nullable(String),
  is_test UInt8,
  ts_ms Int64,
  received_ms Int64,
  day Date
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (app_id, day, id);

CREATE TABLE IF NOT EXISTS {database}.events AS {database}.events_local
ENGINE = {events_engine};
