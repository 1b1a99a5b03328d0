-- The funnel's downloads, each linked to the install's first upgrade after
-- it, so a funnel reads its own cohort's rows instead of every upgrade away
-- from the versions its impressions were on (version_changes holds the
-- upgrades of all installs: for a busy update about nine rows for each one
-- of the cohort's).
--
-- One row per daily_installs download row (update, day, install): the
-- first and last download time of the day, and the first version change
-- (version_changes' row) of the install after first_ts; upgrade_* are NULL
-- while there is none. The fold keeps the link as the install's versions
-- arrive (RollupFolder.writeSeen, FunnelDownloads.swift); the index finds
-- an install's downloads when a new version change may relink them.
CREATE TABLE funnel_downloads (
  app_no INTEGER NOT NULL,
  is_test INTEGER NOT NULL,
  update_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  install_key INTEGER NOT NULL,
  first_ts INTEGER NOT NULL,
  last_ts INTEGER NOT NULL,
  upgrade_ts INTEGER,
  upgrade_from TEXT,
  upgrade_to TEXT,
  PRIMARY KEY (app_no, is_test, update_id, day, install_key)
) WITHOUT ROWID;

-- Databases from before this migration: link the downloads already folded.
-- The temporary index turns each link into one seek; it is dropped again,
-- as the fold finds an install's changes through install_days.
CREATE INDEX version_changes_by_install_backfill
  ON version_changes (app_no, is_test, install_key, ts);

INSERT OR IGNORE INTO funnel_downloads (app_no, is_test, update_id, day, install_key, first_ts,
  last_ts, upgrade_ts, upgrade_from, upgrade_to)
SELECT d.app_no, d.is_test, d.update_id, d.day, d.install_key, d.first_ts, d.last_ts,
  c.ts, c.from_version, c.to_version
FROM daily_installs AS d
LEFT JOIN version_changes AS c
  ON c.app_no = d.app_no AND c.is_test = d.is_test AND c.install_key = d.install_key
  AND c.ts = (
    SELECT min(n.ts) FROM version_changes AS n
    WHERE n.app_no = d.app_no AND n.is_test = d.is_test AND n.install_key = d.install_key
      AND n.ts > d.first_ts)
WHERE d.action = 1;

DROP INDEX version_changes_by_install_backfill;

-- Built after the backfill: one sort instead of a random insert per row.
CREATE INDEX funnel_downloads_by_install ON funnel_downloads (app_no, is_test, install_key);
