-- Every version change of the install after each download, not only the
-- first, so a funnel whose update has a configured latestVersion (or whose
-- first change stops short of it) finds the upgrade in its own download
-- rows instead of climbing through version_changes: with a target the
-- bench's busiest update read ~164k version changes a request, p99 46 ms
-- with 2 clients beside 1,000 events/s of ingest.
--
-- `later_changes` packs version_changes' rows of the install (same test
-- flag) with ts after the row's first_ts: each is the time (8 bytes,
-- little-endian), then the version left and the version reached, each
-- as one length byte and UTF-8 bytes, in time order (FunnelDownloads.swift
-- keeps it as the install's versions arrive). An empty blob: no change yet.
ALTER TABLE funnel_downloads ADD COLUMN later_changes BLOB NOT NULL DEFAULT x'';

-- Databases from before this migration: pack the changes already folded,
-- each download's in one seek of the temporary index.
CREATE INDEX version_changes_by_install_backfill
  ON version_changes (app_no, is_test, install_key, ts);

UPDATE funnel_downloads SET later_changes = coalesce((
  SELECT uptake_pack_changes(ts, from_version, to_version)
  FROM (
    SELECT c.ts, c.from_version, c.to_version FROM version_changes AS c
    WHERE c.app_no = funnel_downloads.app_no AND c.is_test = funnel_downloads.is_test
      AND c.install_key = funnel_downloads.install_key AND c.ts > funnel_downloads.first_ts
    ORDER BY c.ts
  )), x'');

DROP INDEX version_changes_by_install_backfill;
