-- A recipient's token receipts by token (row-encoding.ts HISTORY_INDEXES, `_by_to_token`): the
-- mass-airdrop reason reads a wallet's first receipts of each token on a page, and without the token in
-- the index a token the wallet rarely or never received walked all the wallet's receipts (docs/spam.md).
-- Partitions whose history indexes are built get it now (a chain still in its first backfill gets it
-- with the others, when the backfill ends); building it reads the partition once.
DO $$
DECLARE
  partition record;
BEGIN
  FOR partition IN
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'transfers'::regclass
  LOOP
    IF to_regclass(quote_ident(partition.name || '_by_to')) IS NOT NULL THEN
      EXECUTE format(
        'CREATE INDEX IF NOT EXISTS %I ON %I (to_address, contract_address, block_number DESC, tx_index DESC, seq DESC)
         WHERE contract_address IS NOT NULL',
        partition.name || '_by_to_token', partition.name);
    END IF;
  END LOOP;
END $$;
