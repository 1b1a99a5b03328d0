-- Update configurations (uptake updates put): every put is a new row, so the
-- history is kept; the row with an app's highest version is live. The
-- document is the validated JSON exactly as given. created_at is
-- milliseconds since the epoch.
CREATE TABLE update_configs (
  app_no INTEGER NOT NULL,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  document TEXT NOT NULL,
  PRIMARY KEY (app_no, version)
) WITHOUT ROWID;
