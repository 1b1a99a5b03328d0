-- A node over a ClickHouse cluster (issue 22) keeps its events here as on
-- one box, and ships the committed ones to the cluster in order: this row
-- says how far it has got, and names the node, so that the ids it gives
-- events sent without one are its own. One box leaves it empty.
CREATE TABLE cluster_spool (
  only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
  node_id TEXT NOT NULL,
  shipped_seq INTEGER NOT NULL
);
