-- Sign-up bound to whoever typed the password (issue 36, item 4): a sign-up's answer carries a random
-- token that verification must present with the mailed code, so the mailbox owner who enters the code
-- of a stranger's sign-up (same email, the stranger's password) confirms nothing. Only its SHA-256 is
-- kept. Sign-ups pending from before have no token and cannot be verified: they go (codes last 15 min).
DELETE FROM signups;

ALTER TABLE signups ADD COLUMN token_hash bytea NOT NULL CHECK (octet_length(token_hash) = 32);
