-- Bucket membership from the packed members alone: daily_install_chunks
-- (0007) holds every bucket's members and funnel_impression_chunks (0008)
-- every first impression, as the fold has kept them beside bucket_members
-- since 0011. The fold now rules new members in with a filter in memory
-- and looks the rest up in those chunks (BucketMembership), so the B-tree
-- it rewrote at random pages every step, and the bucket numbers only it
-- used, go.
DROP TABLE bucket_members;
DROP TABLE daily_buckets;
