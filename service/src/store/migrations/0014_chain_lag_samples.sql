-- Each chain's lag over the last 24 hours, for the status page: one row per chain and 10-second
-- bucket holding the largest lag seen in it. A trigger on chain_states writes it, so that every
-- indexer process feeds it in the transaction that moves the chain, with no code of its own, and
-- every API replica reads the same history, across restarts.

CREATE TABLE chain_lag_samples (
  chain text NOT NULL,
  bucket timestamptz NOT NULL,
  lag_blocks bigint,
  lag_seconds bigint,
  PRIMARY KEY (chain, bucket)
);

CREATE FUNCTION record_chain_lag() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bucket_start timestamptz := date_bin('10 seconds', now(), timestamptz '2000-01-01 00:00:00+00');
  blocks bigint;
  seconds bigint;
BEGIN
  IF NEW.latest_block IS NOT NULL AND NEW.indexed_block IS NOT NULL THEN
    blocks := greatest(0, NEW.latest_block - NEW.indexed_block);
  END IF;
  IF NEW.latest_block_time IS NOT NULL AND NEW.indexed_block_time IS NOT NULL THEN
    seconds := greatest(0, round(extract(epoch FROM NEW.latest_block_time - NEW.indexed_block_time)))::bigint;
  END IF;
  IF blocks IS NULL AND seconds IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO chain_lag_samples AS sample (chain, bucket, lag_blocks, lag_seconds)
    VALUES (NEW.chain, bucket_start, blocks, seconds)
    ON CONFLICT (chain, bucket) DO UPDATE
      SET lag_blocks = greatest(sample.lag_blocks, EXCLUDED.lag_blocks),
          lag_seconds = greatest(sample.lag_seconds, EXCLUDED.lag_seconds);
  DELETE FROM chain_lag_samples WHERE chain = NEW.chain AND bucket < now() - interval '24 hours';
  RETURN NULL;
END
$$;

CREATE TRIGGER chain_states_lag_sample AFTER INSERT OR UPDATE ON chain_states
  FOR EACH ROW EXECUTE FUNCTION record_chain_lag();
