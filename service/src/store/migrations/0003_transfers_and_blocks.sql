-- Indexed chain data. Transfers are partitioned by chain (one partition per chain, made when its
-- indexer first starts), so a chain's rows, indexes and reorg deletes stay local to it.

CREATE TABLE transfers (
  chain text NOT NULL,
  block_number bigint NOT NULL,
  block_time timestamptz NOT NULL,
  tx_index integer NOT NULL,
  -- position within the transaction: (block_number, tx_index, seq) is unique per chain and orders history
  seq bigint NOT NULL,
  tx_hash text NOT NULL,
  type text NOT NULL CHECK (type IN ('native', 'internal', 'erc20', 'erc721', 'erc1155', 'fee')),
  from_address text NOT NULL,
  to_address text,
  value numeric(78, 0) NOT NULL,
  contract_address text,
  token_id numeric(78, 0),
  log_index integer,
  batch_index integer,
  operator text
) PARTITION BY LIST (chain);

-- A wallet's history newest first, by keyset, from either side of the transfer.
CREATE INDEX transfers_by_from ON transfers (from_address, block_number DESC, tx_index DESC, seq DESC);
CREATE INDEX transfers_by_to ON transfers (to_address, block_number DESC, tx_index DESC, seq DESC);
-- Reorg rollbacks delete the newest blocks: rows arrive in block order, so a BRIN index finds them cheaply.
CREATE INDEX transfers_by_block ON transfers USING brin (block_number);

CREATE TABLE blocks (
  chain text NOT NULL,
  number bigint NOT NULL,
  hash text NOT NULL,
  parent_hash text NOT NULL,
  timestamp timestamptz NOT NULL,
  PRIMARY KEY (chain, number)
);

CREATE TABLE tokens (
  chain text NOT NULL,
  contract_address text NOT NULL,
  name text,
  symbol text,
  decimals integer,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, contract_address)
);
