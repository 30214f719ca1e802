-- Rate limits and usage metering (SPEC 8, DESIGN §4 "Rate limits").

-- An Enterprise account's own limits, set by an admin (`wds accounts set-limits`). Until a row exists
-- the Enterprise defaults of portal/tiers.ts apply; a row is ignored while the account is on another tier.
CREATE TABLE account_limits (
  account_id uuid PRIMARY KEY REFERENCES accounts (id),
  per_minute integer NOT NULL CHECK (per_minute > 0),
  -- null: unlimited
  per_day integer CHECK (per_day > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Requests per account, key and UTC day: every authenticated request the limiter let through (refused
-- ones never count), whatever its answer. Written in batches from each API process's in-memory meter,
-- so the counts of the last few seconds may not be here yet. Keyed for "an account over a date range".
CREATE TABLE usage_daily (
  account_id uuid NOT NULL REFERENCES accounts (id),
  day date NOT NULL,
  key_id uuid NOT NULL REFERENCES api_keys (id),
  requests bigint NOT NULL CHECK (requests > 0),
  PRIMARY KEY (account_id, day, key_id)
);
