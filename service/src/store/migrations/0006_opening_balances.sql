-- What an address held just before a chain's indexed range (genesis allocations, or everything
-- before WDS_START_BLOCK_<CHAIN>), as the node answered it: a balance is this plus the indexed rows.
-- asset: '' for the chain's coin, else the token contract.

CREATE TABLE opening_balances (
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  block_number bigint NOT NULL,
  balance numeric(78, 0) NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, address, asset)
);
