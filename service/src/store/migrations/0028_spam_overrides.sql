-- Spam overrides (issue 34): an account marks a token (a contract, per chain) as spam or not spam for
-- its own requests; the override wins over the computed verdict (docs/spam.md). Contracts as the API
-- serves them (lower-case for EVM).
CREATE TABLE spam_overrides (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  chain text NOT NULL,
  contract_address text NOT NULL,
  spam boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, chain, contract_address)
);
