-- A UTXO chain's outputs are partitioned by chain, as its transfers are (0003, 0005): the indexes the
-- API reads an address's outputs through are the chain's own and, like the wallet-history indexes,
-- built once its first backfill reaches the head (TransfersStore.buildHistoryIndexes), so that a
-- backfill writes its outputs with the primary key alone (its spent-output lookups) and the block
-- ranges a rollback needs. Per partition, once built:
--   _by_address        (address, block_number DESC, tx_index DESC): what an address was paid, newest first
--   _spent_by_address  (address, spent_block_number DESC, spent_tx_index DESC): what it spent, newest first
--   _by_spending_tx    (spent_tx_hash): a transaction's inputs
-- Outputs stored before this migration move to their chain's partition, with these indexes when the
-- chain's history is already served.

ALTER TABLE outputs RENAME TO outputs_0017;
ALTER INDEX outputs_pkey RENAME TO outputs_0017_pkey;
DROP INDEX outputs_by_address;
DROP INDEX outputs_by_spending_tx;
DROP INDEX outputs_by_block;
DROP INDEX outputs_by_spent_block;

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
) PARTITION BY LIST (chain);

-- rollbacks find the newest blocks' outputs: created and spent in block order, so BRIN indexes suffice
CREATE INDEX outputs_by_block ON outputs USING brin (block_number);
CREATE INDEX outputs_by_spent_block ON outputs USING brin (spent_block_number);

DO $$
DECLARE
  stored record;
  partition text;
BEGIN
  FOR stored IN
    SELECT o.chain, s.history_indexed_at IS NOT NULL AS indexed
    FROM (SELECT DISTINCT chain FROM outputs_0017) o LEFT JOIN chain_states s ON s.chain = o.chain
  LOOP
    partition := 'outputs_' || replace(stored.chain, '-', '_');
    EXECUTE format('CREATE TABLE %I PARTITION OF outputs FOR VALUES IN (%L)', partition, stored.chain);
    EXECUTE format('INSERT INTO %I SELECT * FROM outputs_0017 WHERE chain = %L ORDER BY block_number, tx_index, output_index',
      partition, stored.chain);
    IF stored.indexed THEN
      EXECUTE format('CREATE INDEX %I ON %I (address, block_number DESC, tx_index DESC) WHERE address IS NOT NULL',
        partition || '_by_address', partition);
      EXECUTE format('CREATE INDEX %I ON %I (address, spent_block_number DESC, spent_tx_index DESC) WHERE address IS NOT NULL AND spent_tx_hash IS NOT NULL',
        partition || '_spent_by_address', partition);
      EXECUTE format('CREATE INDEX %I ON %I (spent_tx_hash) WHERE spent_tx_hash IS NOT NULL',
        partition || '_by_spending_tx', partition);
    END IF;
  END LOOP;
END $$;

DROP TABLE outputs_0017;
