-- API processes keep the chains' history states (indexed range, history indexes, epoch) in memory;
-- this trigger tells them, in the transaction that changes one, which chain changed (channel
-- wds_chains, payload: the chain slug). They listen on the connection that follows wds_auth
-- (migration 0012), so that the barrier a request waits for there shows both. The source's head
-- (latest_block), polled every few hundred milliseconds, and the error columns notify nothing.

CREATE FUNCTION notify_chain_state_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wds_chains', (CASE WHEN TG_OP = 'DELETE' THEN OLD.chain ELSE NEW.chain END));
  RETURN NULL;
END
$$;

CREATE TRIGGER chain_states_added_or_removed AFTER INSERT OR DELETE ON chain_states
  FOR EACH ROW EXECUTE FUNCTION notify_chain_state_change();

CREATE TRIGGER chain_states_history_change AFTER UPDATE ON chain_states
  FOR EACH ROW WHEN (
    OLD.indexed_from IS DISTINCT FROM NEW.indexed_from
    OR OLD.indexed_block IS DISTINCT FROM NEW.indexed_block
    OR OLD.indexed_block_time IS DISTINCT FROM NEW.indexed_block_time
    OR OLD.history_indexed_at IS DISTINCT FROM NEW.history_indexed_at
    OR OLD.history_epoch IS DISTINCT FROM NEW.history_epoch
  ) EXECUTE FUNCTION notify_chain_state_change();
