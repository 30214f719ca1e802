-- Per-chain indexing state, one row per chain with a configured source, reported by /v1/status/chains.

CREATE TABLE chain_states (
  chain text PRIMARY KEY,
  -- the first block indexed (WDS_START_BLOCK_<CHAIN>) and the highest block whose rows are committed
  indexed_from bigint,
  indexed_block bigint,
  indexed_block_time timestamptz,
  -- the source's head when last asked
  latest_block bigint,
  latest_block_time timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
