import type { ExportEntry, ExportRecord } from './rows.ts'

/** Entries as the export service builds them, for the format tests: a wallet, its pool, a token. */
export const WALLET = '0x00000000000000000000000000000000000c0ffe'
export const OTHER = '0x00000000000000000000000000000000000beef0'
export const POOL = '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9'
export const TKA = '0x5fbdb2315678afecb367f032d93f642f64180aa3'

export function record(fields: Partial<ExportRecord> & Pick<ExportRecord, 'direction' | 'valueRaw'>): ExportRecord {
  return {
    id: `r${fields.valueRaw}`,
    type: 'native',
    from: fields.direction === 'in' ? POOL : WALLET,
    to: fields.direction === 'in' ? WALLET : POOL,
    asset: 'ETH',
    contractAddress: null,
    tokenId: null,
    tokenDecimals: 18,
    fiatValue: null,
    fiatPrice: null,
    ...fields,
  }
}

export function entry(fields: Partial<ExportEntry>): ExportEntry {
  return {
    id: 'BV0ZaGZQ-uSsIaSz',
    chain: 'ethereum',
    chainId: 1,
    chainName: 'Ethereum',
    wallet: WALLET,
    txHash: '0xe01a',
    blockNumber: 20,
    timestamp: new Date('2024-03-01T13:05:09.000Z'),
    category: 'swap',
    rule: { id: 'swap.fungible-for-fungible', explanation: '' },
    initiatedByWallet: true,
    status: 'success',
    fee: record({ type: 'fee', direction: 'out', to: null, valueRaw: '53566830005686', fiatValue: 0.16 }),
    movements: [],
    ...fields,
  }
}

/** 100 TKA sold for 0.1 ETH, fee in ETH (the swap of docs/transactions.md). */
export const SWAP = entry({
  movements: [
    record({ type: 'erc20', direction: 'out', asset: 'TKA', contractAddress: TKA, valueRaw: '100000000000000000000' }),
    record({ type: 'internal', direction: 'in', valueRaw: '100000000000000000', fiatValue: 300.5, fiatPrice: 3005 }),
  ],
})
