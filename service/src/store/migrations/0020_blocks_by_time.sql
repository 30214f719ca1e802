-- Date bounds of a history page in one index descent (issue 13), instead of a binary search over
-- the blocks' numbers: block times never decrease along a chain, so the first block at or after a
-- time is the first by (timestamp, number).
CREATE INDEX blocks_by_time ON blocks (chain, timestamp, number);
