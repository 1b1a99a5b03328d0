-- No report reads events by time any more: hour and dimension groupings
-- read the rollups of 0005, and the unfolded tail, the fold and the dedup
-- index read events by seq. The index cost every ingested event a second
-- B-tree insert (0.75 µs of the writer's time an event, docs/profile-ingest.md)
-- and its pages in the WAL, for no reader.
DROP INDEX events_by_app_time;
