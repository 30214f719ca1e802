-- A UTXO chain's outputs (DESIGN, "Records across chain families"): every output a transaction
-- creates that can be spent or carries value, with the input that spends it once one does. The
-- unspent ones are the chain's UTXO set; the spent ones stay, so that an input's value and owner are
-- read here (never asked of the node input by input) and an extended key's transactions can be
-- rebuilt whole. Written with the records of their block, in the same transaction; a rollback
-- deletes the outputs created above the common ancestor and unspends those spent above it.
-- address: null for outputs no address stands for (OP_RETURN with value, non-standard scripts).

CREATE TABLE outputs (
  chain text NOT NULL,
  tx_hash text NOT NULL,
  output_index integer NOT NULL,
  block_number bigint NOT NULL,
  tx_index integer NOT NULL,
  address text,
  value bigint NOT NULL,
  spent_tx_hash text,
  spent_block_number bigint,
  spent_tx_index integer,
  spent_input_index integer,
  PRIMARY KEY (chain, tx_hash, output_index)
);

CREATE INDEX outputs_by_address ON outputs (chain, address) WHERE address IS NOT NULL;
CREATE INDEX outputs_by_spending_tx ON outputs (chain, spent_tx_hash) WHERE spent_tx_hash IS NOT NULL;
-- rollbacks find the newest blocks' outputs: created and spent in block order, so BRIN indexes suffice
CREATE INDEX outputs_by_block ON outputs USING brin (block_number);
CREATE INDEX outputs_by_spent_block ON outputs USING brin (spent_block_number);
