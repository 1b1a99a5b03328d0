-- Apps and their keys. Keys are stored only as SHA-256 hashes; the tokens are
-- shown once when created. app_no is the compact number events refer to.
CREATE TABLE apps (
  app_no INTEGER PRIMARY KEY,
  app_id TEXT NOT NULL UNIQUE,
  ingest_key_hash BLOB NOT NULL UNIQUE,
  read_key_hash BLOB NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

-- Every accepted event, in arrival order. seq is the rowid, so inserts append
-- at the end of the table's B-tree. Times are milliseconds since the epoch.
-- dedup_key is the 64-bit hash of (app_no, client id); see DedupIndex.swift.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  app_no INTEGER NOT NULL,
  client_id TEXT,
  dedup_key INTEGER,
  update_id TEXT NOT NULL,
  action INTEGER NOT NULL,
  app_version TEXT NOT NULL,
  install_id TEXT,
  ts INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  os_version TEXT,
  platform TEXT,
  previous_app_version TEXT,
  is_test INTEGER NOT NULL
);

-- Reports read events of one app by time. Events arrive close to time order,
-- so this index grows at its end and costs little on the ingest path.
CREATE INDEX events_by_app_time ON events (app_no, ts);

-- The merged, on-disk level of the duplicate index (DedupIndex.swift): one
-- row per stored client id, keyed by its 64-bit hash.
CREATE TABLE dedup_keys (key INTEGER PRIMARY KEY);

-- Small named integers the store keeps for itself, such as how far the
-- in-memory duplicate level has been merged into dedup_keys.
CREATE TABLE store_state (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
