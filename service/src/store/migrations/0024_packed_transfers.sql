-- Storage per transfer (issue 13): hashes and addresses as packed bytea (store/packed-text.ts: a tag
-- byte, then the hex digits' bytes for hex text or the UTF-8 bytes of anything else), and the rows'
-- columns ordered so that the fixed-width ones come first and nothing is padded. An EVM ERC-20 row
-- goes from 308 to about 196 bytes, each wallet-history index entry from 84 to 60.
--
-- Upgrading rewrites every transfer once (each partition is copied into its new form, its indexes
-- built again, then the old one dropped): it needs the partition's size again in free disk while it runs.

-- The packing rules of store/packed-text.ts, for this migration and for reading rows at psql.
CREATE FUNCTION wds_pack(text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN $1 = '' THEN '\x'::bytea
    WHEN $1 ~ '^0x([0-9a-f]{2})*$' THEN '\x00'::bytea || decode(substr($1, 3), 'hex')
    WHEN $1 ~ '^([0-9a-f]{2})+$' THEN '\x01'::bytea || decode($1, 'hex')
    WHEN $1 ~ '^([0-9A-F]{2})+$' THEN '\x02'::bytea || decode($1, 'hex')
    ELSE '\x03'::bytea || convert_to($1, 'UTF8')
  END
$$;

CREATE FUNCTION wds_unpack(bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN length($1) = 0 THEN ''
    WHEN get_byte($1, 0) = 0 THEN '0x' || encode(substr($1, 2), 'hex')
    WHEN get_byte($1, 0) = 1 THEN encode(substr($1, 2), 'hex')
    WHEN get_byte($1, 0) = 2 THEN upper(encode(substr($1, 2), 'hex'))
    ELSE convert_from(substr($1, 2), 'UTF8')
  END
$$;

-- The text tables step aside: the parent, its block-range index, each partition and its indexes.
ALTER TABLE transfers RENAME TO transfers_text;
ALTER INDEX transfers_by_block RENAME TO transfers_text_by_block;
DO $$
DECLARE
  partition record;
  index record;
BEGIN
  FOR partition IN
    SELECT c.oid, c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'transfers_text'::regclass
  LOOP
    FOR index IN SELECT c.relname AS name FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = partition.oid
    LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', index.name, index.name || '_text');
    END LOOP;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', partition.name, partition.name || '_text');
  END LOOP;
END $$;

CREATE TABLE transfers (
  chain text NOT NULL,
  block_number bigint NOT NULL,
  block_time timestamptz NOT NULL,
  -- position within the transaction: (block_number, tx_index, seq) is unique per chain and orders history
  seq bigint NOT NULL,
  tx_index integer NOT NULL,
  log_index integer,
  batch_index integer,
  type text NOT NULL,
  tx_hash bytea NOT NULL,
  from_address bytea,
  to_address bytea,
  contract_address bytea,
  value numeric(78, 0) NOT NULL,
  token_id numeric(78, 0),
  operator bytea,
  counterparties jsonb
) PARTITION BY LIST (chain);
CREATE INDEX transfers_by_block ON transfers USING brin (block_number);

-- Each partition again under its own name, with the indexes it had: the wallet-history ones once its
-- history is indexed (0005), the record key of an explorer chain's (0015).
DO $$
DECLARE
  partition record;
  name text;
BEGIN
  FOR partition IN
    SELECT c.oid, c.relname AS old, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'transfers_text'::regclass
  LOOP
    name := left(partition.old, -length('_text'));
    EXECUTE format('CREATE TABLE %I PARTITION OF transfers %s', name, partition.bound);
    EXECUTE format(
      'INSERT INTO %I (chain, block_number, block_time, seq, tx_index, log_index, batch_index, type, tx_hash,
         from_address, to_address, contract_address, value, token_id, operator, counterparties)
       SELECT chain, block_number, block_time, seq, tx_index, log_index, batch_index, type, wds_pack(tx_hash),
         wds_pack(from_address), wds_pack(to_address), wds_pack(contract_address), value, token_id, wds_pack(operator),
         counterparties
       FROM %I', name, partition.old);
    IF to_regclass(quote_ident(name || '_by_record_text')) IS NOT NULL THEN
      EXECUTE format('CREATE UNIQUE INDEX %I ON %I (tx_hash, seq)', name || '_by_record', name);
    END IF;
    IF to_regclass(quote_ident(name || '_by_from_text')) IS NOT NULL THEN
      EXECUTE format('CREATE INDEX %I ON %I (from_address, block_number DESC, tx_index DESC, seq DESC)', name || '_by_from', name);
    END IF;
    IF to_regclass(quote_ident(name || '_by_to_text')) IS NOT NULL THEN
      EXECUTE format('CREATE INDEX %I ON %I (to_address, block_number DESC, tx_index DESC, seq DESC)', name || '_by_to', name);
    END IF;
    EXECUTE format('ANALYZE %I', name);
  END LOOP;
END $$;

DROP TABLE transfers_text;

-- The balance checkpoints key their sums by the same packed address and asset (the coin's: empty).
CREATE FUNCTION pg_temp.pack_each(text[]) RETURNS bytea[]
LANGUAGE sql IMMUTABLE AS $$ SELECT array_agg(wds_pack(a) ORDER BY n) FROM unnest($1) WITH ORDINALITY AS u(a, n) $$;

ALTER TABLE balance_checkpoints
  ALTER COLUMN address TYPE bytea USING wds_pack(address),
  ALTER COLUMN asset TYPE bytea USING wds_pack(asset);
ALTER TABLE balance_hot_checkpoints
  ALTER COLUMN address TYPE bytea USING wds_pack(address),
  ALTER COLUMN asset TYPE bytea USING wds_pack(asset);
ALTER TABLE balance_checkpoint_heights
  ALTER COLUMN tracked TYPE bytea[] USING CASE WHEN tracked IS NULL THEN NULL ELSE coalesce(pg_temp.pack_each(tracked), '{}') END;
