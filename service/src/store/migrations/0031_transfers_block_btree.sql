-- The rows of a block range (a balance checkpoint's, a rollback's, the paid addresses filled for an
-- explorer page) are found by a btree on block_number, in place of the BRIN index of 0024.
--
-- The BRIN index assumed that rows lie in the table in block order. They do not quite: each page the
-- writer fills leaves a few bytes that its next row did not fit, PostgreSQL's free-space map records
-- them, and a smaller row of a later block lands there. In bench:scale's chain of 10^6 records the
-- 128-page ranges of the BRIN index spanned up to 26,000 blocks each (a block is ~34 rows): a balance
-- checkpoint's 600 blocks read 4,779 pages for 463 pages of rows (92 ms), and ranges not yet summarised
-- (a BRIN range is summarised when the table is vacuumed) were all read, so during a first backfill a
-- checkpoint read a growing share of the chain (240 ms each at 10^6, 12 s of the backfill's 27 CPU-s in
-- PostgreSQL). The btree reads the range's pages (30 ms), and costs ~7 bytes a row (deduplicated keys:
-- ~34 rows share one block number); its appends are at its right edge.
DROP INDEX transfers_by_block;
CREATE INDEX transfers_by_block ON transfers (block_number);
