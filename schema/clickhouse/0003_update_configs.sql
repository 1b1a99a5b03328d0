-- Update configurations (uptake updates put), the same on every server as
-- apps are: every version of every app's configuration, the highest
-- version live. A put writes the next version to every server; a node
-- reads the versions it lacks into its own table, whose checks answer
-- from memory (UptakeCluster/Configuration/ClusterUpdateConfigs.swift).
-- written_ms settles two puts that chose the same version: the later.
CREATE TABLE IF NOT EXISTS {database}.update_configs (
  app_id String,
  version Int64,
  created_ms Int64,
  document String,
  written_ms UInt64
) ENGINE = ReplacingMergeTree(written_ms)
ORDER BY (app_id, version);
