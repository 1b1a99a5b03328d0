-- The duplicate index's merged level as sorted blocks of keys
-- (DedupBlocks.swift): up to 448 keys a row, 8 bytes each, little-endian,
-- ascending, under the block's smallest key. As a row a key, each merge
-- of half a million random keys was as many single inserts; as blocks it
-- rewrites each block its keys fall in once. Existing keys are packed 320
-- to a block, which leaves room for the merges to come.
CREATE TABLE dedup_blocks (
  first_key INTEGER PRIMARY KEY,
  packed BLOB NOT NULL
);

INSERT INTO dedup_blocks (first_key, packed)
SELECT min(key), uptake_pack_sorted_keys(key)
FROM (SELECT key, (row_number() OVER (ORDER BY key) - 1) / 320 AS block FROM dedup_keys)
GROUP BY block;

DROP TABLE dedup_keys;
