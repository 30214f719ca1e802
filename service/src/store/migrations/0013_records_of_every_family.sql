-- Records of every chain family (DESIGN, "Records across chain families"): the record type is the
-- domain vocabulary's (domain/records.ts), checked by the code that writes it rather than by a list
-- here; value with no sender (a coinbase, a block reward, a withdrawal) has no from address; a UTXO
-- transaction's record lists every counterparty with its share.
ALTER TABLE transfers DROP CONSTRAINT IF EXISTS transfers_type_check;
ALTER TABLE transfers ALTER COLUMN from_address DROP NOT NULL;
ALTER TABLE transfers ADD COLUMN counterparties jsonb;
