-- Daily closing prices of crypto assets, one row per asset, UTC day and source, as the source published
-- them: `close` in `quote` (USD, or USDT for exchange pairs quoted in Tether).

CREATE TABLE asset_prices (
  symbol text NOT NULL,
  date date NOT NULL,
  source text NOT NULL,
  quote text NOT NULL CHECK (quote IN ('USD', 'USDT')),
  close numeric NOT NULL CHECK (close > 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (symbol, date, source)
);

-- When a rate was last written: processes holding the rates in memory reload when this changes.
ALTER TABLE fx_rates ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
