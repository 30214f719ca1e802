-- Balances in constant time (issue 13): each indexed chain keeps, per (address, asset), its balance
-- now (wallet_balances) and after every block that moved it (balance_history), maintained by
-- statement triggers on the chain's partition in the transaction that appends or rolls back its rows.
-- The asset is '' for the chain's coin and the contract for a fungible token; NFTs are not summed.
-- Which record types are coin and token is the code's vocabulary (domain/records.ts): the store
-- passes both lists as the triggers' arguments when it attaches them (transfers-store.ts).
CREATE TABLE wallet_balances (
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  balance numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain, address, asset)
);

-- The balance after each block that moved it: the balance at block B is the row with the highest
-- block_number <= B, one descent of the primary key.
CREATE TABLE balance_history (
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  block_number bigint NOT NULL,
  balance numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain, address, asset, block_number)
);

-- Rows appended (in block order, after every block already stored for the chain): each moved
-- (address, asset) gets its balance after each block, from its balance before the statement.
-- TG_ARGV: the coin record types, the token record types (comma-separated).
CREATE FUNCTION wds_balances_appended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  coin text[] := string_to_array(TG_ARGV[0], ',');
  token text[] := string_to_array(TG_ARGV[1], ',');
BEGIN
  WITH moves AS (
    SELECT chain, to_address AS address, CASE WHEN type = ANY(token) THEN contract_address ELSE '' END AS asset,
           block_number, value AS delta
      FROM appended WHERE to_address IS NOT NULL AND (type = ANY(coin) OR type = ANY(token))
    UNION ALL
    SELECT chain, from_address, CASE WHEN type = ANY(token) THEN contract_address ELSE '' END,
           block_number, -value
      FROM appended WHERE from_address IS NOT NULL AND (type = ANY(coin) OR type = ANY(token))
  ), per_block AS (
    SELECT chain, address, asset, block_number, sum(delta) AS delta FROM moves GROUP BY 1, 2, 3, 4
  ), running AS (
    SELECT p.chain, p.address, p.asset, p.block_number,
           coalesce(w.balance, 0) + sum(p.delta) OVER (PARTITION BY p.chain, p.address, p.asset ORDER BY p.block_number) AS balance
      FROM per_block p LEFT JOIN wallet_balances w USING (chain, address, asset)
  ), history AS (
    INSERT INTO balance_history (chain, address, asset, block_number, balance)
    SELECT chain, address, asset, block_number, balance FROM running
    ON CONFLICT (chain, address, asset, block_number) DO UPDATE SET balance = EXCLUDED.balance
  )
  INSERT INTO wallet_balances (chain, address, asset, balance)
  SELECT DISTINCT ON (chain, address, asset) chain, address, asset, balance FROM running
   ORDER BY chain, address, asset, block_number DESC
  ON CONFLICT (chain, address, asset) DO UPDATE SET balance = EXCLUDED.balance;
  RETURN NULL;
END $$;

-- Rows removed (a rollback removes every block above an ancestor): each (address, asset) they moved
-- loses its history from the first block removed, and its balance is its last remaining one.
CREATE FUNCTION wds_balances_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  coin text[] := string_to_array(TG_ARGV[0], ',');
  token text[] := string_to_array(TG_ARGV[1], ',');
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS wds_removed_keys (chain text, address text, asset text, first_block bigint) ON COMMIT DROP;
  TRUNCATE wds_removed_keys;
  INSERT INTO wds_removed_keys
  SELECT chain, address, asset, min(block_number) FROM (
    SELECT chain, to_address AS address, CASE WHEN type = ANY(token) THEN contract_address ELSE '' END AS asset, block_number
      FROM removed WHERE to_address IS NOT NULL AND (type = ANY(coin) OR type = ANY(token))
    UNION ALL
    SELECT chain, from_address, CASE WHEN type = ANY(token) THEN contract_address ELSE '' END, block_number
      FROM removed WHERE from_address IS NOT NULL AND (type = ANY(coin) OR type = ANY(token))
  ) AS moved GROUP BY 1, 2, 3;
  DELETE FROM balance_history h USING wds_removed_keys k
   WHERE h.chain = k.chain AND h.address = k.address AND h.asset = k.asset AND h.block_number >= k.first_block;
  UPDATE wallet_balances w
     SET balance = coalesce((SELECT h.balance FROM balance_history h
                              WHERE h.chain = w.chain AND h.address = w.address AND h.asset = w.asset
                              ORDER BY h.block_number DESC LIMIT 1), 0)
    FROM wds_removed_keys k
   WHERE w.chain = k.chain AND w.address = k.address AND w.asset = k.asset;
  RETURN NULL;
END $$;

-- A truncated partition (tests, benchmarks): its chain has no balances left.
CREATE FUNCTION wds_balances_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM balance_history WHERE chain = TG_ARGV[0];
  DELETE FROM wallet_balances WHERE chain = TG_ARGV[0];
  RETURN NULL;
END $$;
