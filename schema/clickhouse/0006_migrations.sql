-- How far `uptake migrate-to-clickhouse` has copied each one-box
-- database's events, the same on every server as apps are (a row a step,
-- written to every server, the newest version wins). source_id names the
-- database by what never changes in it (UptakeCluster/Migration/
-- OneBoxSource.swift). Before a block is inserted, in_flight_seq records
-- its last seq; once every shard has it, shipped_seq does too. A run
-- killed between the two finds the block's events already in the cluster
-- by their ids, and ships only the others, so each event lands once. The
-- record lives with the events it describes: a cluster emptied and made
-- again holds no record, and a migration into it starts from the first
-- event.
CREATE TABLE IF NOT EXISTS {database}.migrations (
  source_id String,
  source_path String,
  shipped_seq Int64,
  in_flight_seq Int64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY source_id;
