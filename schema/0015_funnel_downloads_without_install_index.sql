-- funnel_downloads without its index by install (0004). The fold read an
-- install's download rows through it when the install's version changes
-- moved, and kept it up for every download: a second B-tree insert at a
-- random page for each row, about a third of the rows' cost under a flood
-- of batches. The fold now finds those rows by key: the updates with
-- downloads on each day the install was seen (daily_counts), less those
-- the day's membership filter rules out (FunnelDownloads).
DROP INDEX funnel_downloads_by_install;
