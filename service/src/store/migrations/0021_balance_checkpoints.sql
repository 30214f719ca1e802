-- Balances in constant time (issue 13), the write-cheap way: checkpoints of final history in two tiers,
-- written in bulk by the indexer (one INSERT … SELECT each, no triggers on the rows) and only at blocks
-- deeper than the reorg window, so that a reorg the indexer follows never reaches them.
--
-- Checkpoint heights come every so many final blocks or rows (ingestion/balance-checkpoints.ts); every
-- so many of them is a full one. A full checkpoint holds, for each (address, asset) moved since the
-- previous full one (or the opening block, after_block), its net movement over those blocks
-- (balance_checkpoints), and names the addresses that moved at least so many times in them (tracked).
-- Until the next full checkpoint, each other checkpoint holds the net movement of the tracked addresses'
-- keys since the checkpoint before it (balance_hot_checkpoints); nobody else's.
--
-- A balance at block B (balances-store.ts): the full checkpoints at or below the last full one F <= B,
-- plus, for an address tracked after F, its hot checkpoints up to the last checkpoint C <= B and its
-- rows in (C, B]; for any other address its rows in (F, B], which are few (it was not tracked). A net
-- movement sums the way balances-store.ts sums rows: asset '' for the chain's coin, the contract for a
-- fungible token.
CREATE TABLE balance_checkpoints (
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  block_number bigint NOT NULL,
  delta numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain, address, asset, block_number)
);

CREATE TABLE balance_hot_checkpoints (
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  block_number bigint NOT NULL,
  delta numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain, address, asset, block_number)
);
-- an address's hot checkpoints in a block range, whatever the asset
CREATE INDEX balance_hot_checkpoints_by_block ON balance_hot_checkpoints (chain, address, block_number);

-- The heights a chain has checkpoints at.
CREATE TABLE balance_checkpoint_heights (
  chain text NOT NULL,
  block_number bigint NOT NULL,
  -- the opening block the sums start after: max(0, indexed_from - 1)
  after_block bigint NOT NULL,
  full_checkpoint boolean NOT NULL,
  -- on a full checkpoint: the addresses tracked until the next one
  tracked text[],
  -- what writing it took: the movements summed (a row's sending and receiving sides) and the keys written
  movements bigint NOT NULL,
  keys_written bigint NOT NULL,
  PRIMARY KEY (chain, block_number)
);
