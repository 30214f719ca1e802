-- Developer accounts and their API keys (SPEC 2.6, 3, 5). The full key is never stored:
-- only its SHA-256 hash (looked up on every request) and a display hint such as wds_pro_…9f3a.

CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL CHECK (email = lower(email)),
  tier text NOT NULL CHECK (tier IN ('free', 'std', 'pro', 'ent')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT accounts_email_unique UNIQUE (email)
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id),
  name text,
  -- the tier marker in the key, i.e. the account's tier when the key was created
  tier text NOT NULL CHECK (tier IN ('free', 'std', 'pro', 'ent')),
  key_hash bytea NOT NULL CHECK (octet_length(key_hash) = 32),
  hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  CONSTRAINT api_keys_key_hash_unique UNIQUE (key_hash)
);

CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
