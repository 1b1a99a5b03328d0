-- What the App Store lookups have shown (issue 24), kept so that a restart
-- does not forget when a version was first seen, which would start every
-- country's grace again and hold prompts back for a day. The daemon's
-- watch writes it after each lookup; `uptake updates status` reads it.
-- Times are milliseconds since the epoch.

-- Every version a lookup of an App Store app in a country has shown.
CREATE TABLE app_store_versions (
  app_store_id TEXT NOT NULL,
  country TEXT NOT NULL,
  version TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  minimum_os_version TEXT,
  PRIMARY KEY (app_store_id, country, version)
) WITHOUT ROWID;

-- The last lookup of an App Store app in a country, and what it left.
CREATE TABLE app_store_lookups (
  app_store_id TEXT NOT NULL,
  country TEXT NOT NULL,
  looked_up_at INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT,
  failures_in_a_row INTEGER NOT NULL,
  not_sold INTEGER NOT NULL,
  PRIMARY KEY (app_store_id, country)
) WITHOUT ROWID;
