-- Billing (issue 5): each account's plan history, for invoices, and its Stripe customer.

-- Every tier an account has been on, from its creation: written by triggers, so that every way of
-- changing a tier (the portal, a Stripe webhook, `wds accounts set-tier`, SQL) is recorded.
CREATE TABLE plan_changes (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  tier text NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX plan_changes_by_account ON plan_changes (account_id, changed_at);

INSERT INTO plan_changes (account_id, tier, changed_at) SELECT id, tier, created_at FROM accounts;

CREATE FUNCTION record_plan_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO plan_changes (account_id, tier) VALUES (NEW.id, NEW.tier);
  RETURN NULL;
END
$$;

CREATE TRIGGER accounts_plan_created AFTER INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION record_plan_change();

CREATE TRIGGER accounts_plan_changed AFTER UPDATE OF tier ON accounts
  FOR EACH ROW WHEN (OLD.tier IS DISTINCT FROM NEW.tier) EXECUTE FUNCTION record_plan_change();

-- The Stripe customer and subscription of an account that paid through Stripe Checkout.
ALTER TABLE accounts
  ADD COLUMN stripe_customer_id text UNIQUE,
  ADD COLUMN stripe_subscription_id text;

-- Stripe webhook events already applied: Stripe delivers at least once.
CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
