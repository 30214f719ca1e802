-- Daily FX reference rates: units of `currency` per 1 EUR on `date`, as the source published them
-- (the ECB's euro reference rates: TARGET business days only; no row where the ECB wrote N/A).

CREATE TABLE fx_rates (
  date date NOT NULL,
  currency text NOT NULL,
  rate numeric NOT NULL CHECK (rate > 0),
  source text NOT NULL,
  PRIMARY KEY (currency, date)
);

CREATE INDEX fx_rates_by_date ON fx_rates (date);
