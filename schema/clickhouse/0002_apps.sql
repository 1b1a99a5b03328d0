-- Apps and their keys, the same on every server: each server holds a full
-- copy (they are few and small, and a node must authenticate whichever
-- shard is down). A change is written to every server as a new row whose
-- version is the time of the change; a reader asks every server, takes
-- the newest version of each app, and writes it back to a server that
-- lacks it, so a server that was down during a change catches up at the
-- next read (UptakeCluster/Apps/ClusterApps.swift). Keys are stored as
-- SHA-256 hashes, hex, as one box stores them.

CREATE TABLE IF NOT EXISTS {database}.apps (
  app_id String,
  ingest_key_hash String,
  read_key_hash String,
  created_ms Int64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY app_id;
