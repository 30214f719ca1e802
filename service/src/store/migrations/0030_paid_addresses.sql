-- The addresses each wallet really paid (address-poisoning's genuine counterparties, docs/spam.md):
-- one row per chain, wallet and address paid, with the first block it was paid in. "Paid": a non-zero
-- value of anything, not a fee, to another address, in a transaction the wallet signed (a native send,
-- or one whose fee it paid). A page's spam flags look up its counterparties here, one index range per
-- counterparty, instead of reading the wallet's whole outgoing history (the whale of bench:scale at
-- 10^7 records: 1.6 million outgoing records, a query timeout on its first page).
--
-- The address is its text (store/packed-text.ts unpacked), in the "C" collation. A look-alike shares
-- the first and the last characters: `ends` interleaves an address's first 16 characters with its last
-- 16 (the first, the last, the second, the second to last ...), so that the addresses beginning with a
-- counterparty's first k characters and ending with its last k are one range of the `by_ends` index,
-- whatever k the settings ask (lookAlikeChars; up to 16), however many addresses share a prefix
-- (vanity `0x0000…` contracts). The indexer writes the pairs as it appends (not during a chain's
-- first backfill: they are filled once when its history indexes are built), the explorer cache as it
-- stores a page; a reorg removes those first paid above the fork block.
-- (written out, so that it is inlined: a character past either end is the empty string)
CREATE FUNCTION wds_address_ends(text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT substr($1, 1, 1) || substr($1, length($1), 1)
    || substr($1, 2, 1) || substr($1, length($1) - 1, 1)
    || substr($1, 3, 1) || substr($1, length($1) - 2, 1)
    || substr($1, 4, 1) || substr($1, length($1) - 3, 1)
    || substr($1, 5, 1) || substr($1, length($1) - 4, 1)
    || substr($1, 6, 1) || substr($1, length($1) - 5, 1)
    || substr($1, 7, 1) || substr($1, length($1) - 6, 1)
    || substr($1, 8, 1) || substr($1, length($1) - 7, 1)
    || substr($1, 9, 1) || substr($1, length($1) - 8, 1)
    || substr($1, 10, 1) || substr($1, length($1) - 9, 1)
    || substr($1, 11, 1) || substr($1, length($1) - 10, 1)
    || substr($1, 12, 1) || substr($1, length($1) - 11, 1)
    || substr($1, 13, 1) || substr($1, length($1) - 12, 1)
    || substr($1, 14, 1) || substr($1, length($1) - 13, 1)
    || substr($1, 15, 1) || substr($1, length($1) - 14, 1)
    || substr($1, 16, 1) || substr($1, length($1) - 15, 1)
$$;

-- One partition per chain, as `transfers` (row-encoding.ts paidPartitionName): after a chain's first
-- backfill its pairs are loaded into a table of their own, indexed by sorting and attached
-- (store/paid-addresses.ts buildPaidAddresses), instead of a million random inserts into three
-- btrees that outgrow the buffer cache (bench:scale at 10^6 records: ingest 0.82x the yardstick, 1.29x
-- at 10^5).
CREATE TABLE paid_addresses (
  chain text NOT NULL,
  wallet bytea NOT NULL,
  address text COLLATE "C" NOT NULL,
  ends text COLLATE "C" NOT NULL,
  first_block bigint NOT NULL,
  PRIMARY KEY (chain, wallet, address)
) PARTITION BY LIST (chain);

CREATE INDEX paid_addresses_by_ends ON paid_addresses (wallet, ends);
CREATE INDEX paid_addresses_by_first_block ON paid_addresses (first_block);

-- A partition for each chain stored before this migration.
DO $$
DECLARE
  partition record;
BEGIN
  FOR partition IN
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'transfers'::regclass
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF paid_addresses %s',
      'paid_addresses_' || substr(partition.name, length('transfers_') + 1), partition.bound);
  END LOOP;
END $$;

-- Every payment written before this migration, in one pass per kind: native sends, and other payments
-- joined to their sender's fee in the same transaction (a hashed semi-join; store/paid-addresses.ts
-- paymentsOf is the same statement for one partition).
SET LOCAL work_mem = '256MB';

INSERT INTO paid_addresses (chain, wallet, address, ends, first_block)
SELECT s.chain, s.from_address, wds_unpack(s.to_address), wds_address_ends(wds_unpack(s.to_address)), min(s.block_number) FROM (
  SELECT s.chain, s.from_address, s.to_address, s.block_number FROM transfers s
  WHERE s.from_address IS NOT NULL AND s.to_address IS NOT NULL AND s.to_address <> s.from_address
    AND s.value > 0 AND s.type = 'native'
  UNION ALL
  SELECT s.chain, s.from_address, s.to_address, s.block_number FROM transfers s
  WHERE s.from_address IS NOT NULL AND s.to_address IS NOT NULL AND s.to_address <> s.from_address
    AND s.value > 0 AND s.type NOT IN ('fee', 'native')
    AND EXISTS (SELECT 1 FROM transfers f WHERE f.type = 'fee' AND f.chain = s.chain AND f.from_address = s.from_address
                  AND f.block_number = s.block_number AND f.tx_index = s.tx_index)
) s
GROUP BY s.chain, s.from_address, s.to_address;
