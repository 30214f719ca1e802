-- The transactions that failed (reverted), where the chain's source says so (EVM: the receipt's
-- status, or the trace before Byzantium): such a transaction's only record is its fee, as is a
-- successful call that moved nothing, so its status is kept here for /transactions. Written with the
-- block's transfers and rolled back with them.
CREATE TABLE failed_transactions (
  chain text NOT NULL,
  block_number bigint NOT NULL,
  tx_index integer NOT NULL,
  PRIMARY KEY (chain, block_number, tx_index)
);
