/**
 * The transfers reader's old module name, kept only for files other engineers are editing right now
 * (api/app.ts, api/spam-flags.ts, api/wallet-balances.ts, main/service.ts) and bench/: new code imports
 * transfers-reader.ts.
 * @deprecated remove once nothing imports it.
 */
export * from './transfers-reader.ts'
