-- A chain whose indexer stopped until an operator acts (a reorg deeper than the reorg window): since
-- when. last_error says what happened and what to do; `wds index --chain X --rewind N` clears both.

ALTER TABLE chain_states ADD COLUMN stalled_at timestamptz;
