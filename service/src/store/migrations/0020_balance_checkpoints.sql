-- Balances in constant time (issue 13), the write-cheap way: sparse checkpoints of final history,
-- written in bulk by the indexer (one INSERT … SELECT per checkpoint, no triggers on the rows) and
-- only at blocks deeper than the reorg window, so that a reorg the indexer follows never reaches them.
--
-- A checkpoint at height H holds, for each (address, asset) that moved in the blocks since the
-- chain's previous checkpoint, its net movement over every indexed block up to H: the rows above
-- after_block (the opening block, max(0, indexed_from - 1)) and at or below H, summed the way
-- balances-store.ts sums them (asset '' for the chain's coin, the contract for a fungible token).
-- A key that did not move since the previous checkpoint keeps its row there: the balance at block B
-- is its latest row at or below the chain's latest checkpoint C <= B, plus the rows in (C, B].
CREATE TABLE balance_checkpoints (
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  block_number bigint NOT NULL,
  balance numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain, address, asset, block_number)
);

-- The heights a chain has checkpoints at, and the opening block their sums start after.
CREATE TABLE balance_checkpoint_heights (
  chain text NOT NULL,
  block_number bigint NOT NULL,
  after_block bigint NOT NULL,
  -- what writing it took: the movements summed (a row's sending and receiving sides) and the keys written
  movements bigint NOT NULL,
  keys_written bigint NOT NULL,
  PRIMARY KEY (chain, block_number)
);
