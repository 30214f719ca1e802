-- "Explorer API" chains are read per wallet on demand (SPEC 2.5): their final records go into the
-- chain's transfers partition like an indexed chain's, and each wallet read keeps here how far its
-- history has been read from the upstream (the adapter's own paging position, as JSON).

CREATE TABLE explorer_wallets (
  chain text NOT NULL,
  address text NOT NULL,
  -- the adapter's position: where to go on reading the history (older pages, then newer ones)
  position jsonb,
  -- whether the whole history up to the upstream's head at synced_at is stored
  complete boolean NOT NULL DEFAULT false,
  synced_at timestamptz,
  PRIMARY KEY (chain, address)
);
