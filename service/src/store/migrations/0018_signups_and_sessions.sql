-- Sign-up that cannot be hijacked (issue 11): each sign-up is its own row with its own password hash and
-- code, so a code confirms only the sign-up it was mailed for, and a stranger's sign-up changes nothing
-- of the account until the mailbox owner enters that sign-up's code. Pending codes of the old shape go.
DROP TABLE email_codes;

CREATE TABLE signups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  password_hash text NOT NULL,
  -- SHA-256 of "<signup id>:<6 digits>"
  code_hash bytea NOT NULL CHECK (octet_length(code_hash) = 32),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX signups_by_account ON signups (account_id, created_at DESC);

-- Wrong codes per email across all its sign-ups (known account or not): 5 free, then a lockout that doubles.
CREATE TABLE verify_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL DEFAULT 0,
  locked_until timestamptz
);

-- Portal sessions: a token names the account's session epoch; "log out everywhere" moves it on.
ALTER TABLE accounts ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;

-- Tokens logged out before they expire, kept until they would have expired.
CREATE TABLE revoked_tokens (
  jti uuid PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
