-- Why a chain is not progressing, for /v1/status/chains: the indexer's last failure, cleared by its next success.

ALTER TABLE chain_states
  ADD COLUMN last_error text,
  ADD COLUMN last_error_at timestamptz;
