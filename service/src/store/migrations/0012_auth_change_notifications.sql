-- API processes keep key lookups in memory; these triggers tell them, in the transaction that changes
-- it, that an account's keys, tier or limits changed (channel wds_auth, payload: the account id).

CREATE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wds_auth', (CASE WHEN TG_OP = 'DELETE' THEN OLD.account_id ELSE NEW.account_id END)::text);
  RETURN NULL;
END
$$;

CREATE FUNCTION notify_account_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wds_auth', NEW.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_auth_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_auth_change();

CREATE TRIGGER account_limits_auth_change AFTER INSERT OR UPDATE OR DELETE ON account_limits
  FOR EACH ROW EXECUTE FUNCTION notify_auth_change();

CREATE TRIGGER accounts_auth_change AFTER UPDATE OF tier ON accounts
  FOR EACH ROW WHEN (OLD.tier IS DISTINCT FROM NEW.tier) EXECUTE FUNCTION notify_account_change();
