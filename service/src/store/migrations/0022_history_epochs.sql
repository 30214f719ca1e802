-- A chain's history epoch (issue 13): a number that changes whenever rows it served may be gone — a
-- rollback, a rewind, or the chain's state made anew — and never otherwise. A reader that remembers
-- what it summed up to a block (api/balance-memo.ts) may add only the rows above that block while the
-- epoch is unchanged: appends never write below the indexed block. Drawn from a sequence, so that a
-- chain whose state row is deleted and made again never repeats an epoch.
CREATE SEQUENCE chain_history_epochs;
ALTER TABLE chain_states ADD COLUMN history_epoch bigint NOT NULL DEFAULT nextval('chain_history_epochs');
