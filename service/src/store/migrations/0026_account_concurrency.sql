-- Concurrency by tier (issue 36, item 5): requests of one account that may run at once per API process
-- are a tier's limit (domain/tiers.ts: Free 2, Standard 4, Professional 8, Enterprise 16), and an
-- Enterprise account's own setting (`wds accounts set-limits --concurrent N`) is kept here; null: the
-- tier's (or WDS_ACCOUNT_CONCURRENCY when the operator set it).
ALTER TABLE account_limits ADD COLUMN concurrent integer CHECK (concurrent > 0);
