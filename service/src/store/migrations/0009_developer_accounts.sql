-- Developer accounts of the portal (issue 5): a password (argon2id hash) and a verified email.
-- Accounts made by `wds keys create` have neither until their owner signs up with the same email.

ALTER TABLE accounts
  ADD COLUMN password_hash text,
  ADD COLUMN verified_at timestamptz;

-- The one pending email code of an account: a SHA-256 of the 6 digits, single use.
CREATE TABLE email_codes (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL CHECK (octet_length(code_hash) = 32),
  expires_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Failed logins in a row per email (known account or not), to slow guessing down.
CREATE TABLE login_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL,
  last_failed_at timestamptz NOT NULL
);
