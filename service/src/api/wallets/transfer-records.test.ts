import { describe, expect, test } from 'vitest'
import { ALL_RECORD_TYPES, RECORD_TYPES, recordId, type Token } from '../../domain/records.ts'
import type { StoredTransfer } from '../../store/transfers-reader.ts'
import { Erc20TransferSchema, NftTransferSchema, TransferSchema } from '../schemas/transfers.ts'
import { ALL_BUT_FEES, COIN_TYPES, directionOf, shapeErc20Transfer, shapeNftTransfer, shapeTransfer } from './transfer-records.ts'

const wallet = '0x00000000000000000000000000000000000000aa'
const other = '0x00000000000000000000000000000000000000bb'
const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const USDC: Token = { contractAddress: usdc, name: 'USD Coin', symbol: 'USDC', decimals: 6 }

const stored = (fields: Partial<StoredTransfer>): StoredTransfer => ({
  chain: 'ethereum',
  blockNumber: 18_000_000,
  blockTime: new Date('2023-08-26T12:00:11Z'),
  txIndex: 4,
  seq: 1,
  txHash: '0x1111111111111111111111111111111111111111111111111111111111111111',
  type: 'native',
  from: wallet,
  to: other,
  value: '1500000000000000000',
  contractAddress: null,
  tokenId: null,
  logIndex: null,
  batchIndex: null,
  operator: null,
  counterparties: null,
  ...fields,
})

/** The schema's properties, in order, that a shaped record has (the optional ones and `spam` are added later). */
const schemaOrder = (schema: { properties: Record<string, unknown> }, record: object) =>
  Object.keys(schema.properties).filter((key) => key in record)

describe('shapeTransfer()', () => {
  test('a coin record: exact decimals of the chain, the raw value beside, the stable id, out of the sender', () => {
    const t = stored({})
    expect(shapeTransfer(t, wallet, undefined)).toEqual({
      id: recordId('ethereum', t.txHash, 1),
      chain: 'ethereum',
      chainId: 1,
      txHash: t.txHash,
      blockNumber: 18_000_000,
      timestamp: '2023-08-26T12:00:11.000Z',
      type: 'native',
      from: wallet,
      to: other,
      value: '1.500000000000000000',
      valueRaw: '1500000000000000000',
      asset: 'ETH',
      contractAddress: null,
      tokenId: null,
      tokenDecimals: 18,
      logIndex: null,
      direction: 'out',
    })
    expect(shapeTransfer(t, other, undefined).direction).toBe('in')
  })

  test('its fields are in the order of the Transfer schema, the required ones all there', () => {
    const record = shapeTransfer(stored({}), wallet, undefined)
    expect(Object.keys(record)).toEqual(schemaOrder(TransferSchema, record))
    for (const key of TransferSchema.required ?? []) expect(record).toHaveProperty(key)
  })

  test('a token record takes the token’s decimals and symbol; an unknown token stays in raw units, without a symbol', () => {
    const t = stored({ type: 'erc20', contractAddress: usdc, value: '250500000', logIndex: 7 })
    expect(shapeTransfer(t, wallet, USDC)).toMatchObject({ value: '250.500000', asset: 'USDC', tokenDecimals: 6 })
    expect(shapeTransfer(t, wallet, undefined)).toMatchObject({ value: '250500000', asset: null, tokenDecimals: null })
  })

  test('an NFT record moves a count: no decimals, whatever its contract says', () => {
    const t = stored({ type: 'erc721', contractAddress: usdc, value: '1', tokenId: '42', logIndex: 3 })
    expect(shapeTransfer(t, other, USDC)).toMatchObject({ value: '1', tokenDecimals: null, tokenId: '42', direction: 'in' })
  })

  test('a fee is out of the wallet; a UTXO record lists its counterparties in the chain’s decimals', () => {
    expect(directionOf({ type: 'fee', from: other }, wallet)).toBe('out')
    const utxo = stored({
      chain: 'bitcoin',
      type: 'native',
      from: 'bc1qsender',
      to: 'bc1qfirst',
      value: '150000000',
      counterparties: [
        { address: 'bc1qfirst', value: '100000000' },
        { address: 'bc1qsecond', value: '50000000' },
      ],
    })
    const record = shapeTransfer(utxo, 'bc1qsender', undefined)
    expect(record).toMatchObject({ chainId: null, asset: 'BTC', value: '1.50000000', direction: 'out' })
    expect((record as { counterparties?: unknown }).counterparties).toEqual([
      { address: 'bc1qfirst', value: '1.00000000' },
      { address: 'bc1qsecond', value: '0.50000000' },
    ])
    expect(Object.keys(record)).toEqual(schemaOrder(TransferSchema, record))
    expect('counterparties' in shapeTransfer(stored({}), wallet, undefined)).toBe(false)
  })
})

test('shapeErc20Transfer(): the token’s decimals, raw units when unknown, fields in the schema’s order', () => {
  const t = stored({ type: 'erc20', contractAddress: usdc, value: '1000001', logIndex: 9 })
  const record = shapeErc20Transfer(t, other, USDC)
  expect(record).toMatchObject({ tokenSymbol: 'USDC', tokenDecimals: 6, value: '1.000001', valueRaw: '1000001', direction: 'in' })
  expect(shapeErc20Transfer(t, other, undefined)).toMatchObject({ tokenSymbol: null, tokenDecimals: null, value: '1000001' })
  expect(Object.keys(record)).toEqual(schemaOrder(Erc20TransferSchema, record))
  for (const key of Erc20TransferSchema.required ?? []) if (key !== 'spam') expect(record).toHaveProperty(key)
})

test('shapeNftTransfer(): the standard, the amount, the collection, batch index 0 outside a batch, the schema’s fields', () => {
  const t = stored({ type: 'erc1155', contractAddress: usdc, value: '3', tokenId: '7', logIndex: 2, operator: other })
  const record = shapeNftTransfer(t, wallet, { ...USDC, name: 'Items', symbol: 'ITM' })
  expect(record).toMatchObject({
    tokenStandard: 'erc1155',
    amount: '3',
    tokenId: '7',
    batchIndex: 0,
    operator: other,
    collectionName: 'Items',
    collectionSymbol: 'ITM',
    direction: 'out',
  })
  // every field of the schema and none more (batchIndex is written after contractAddress, not where the schema lists it)
  expect(Object.keys(record).sort()).toEqual(
    Object.keys(NftTransferSchema.properties)
      .filter((key) => key !== 'spam')
      .sort(),
  )
})

test('COIN_TYPES are the coin’s record types; ALL_BUT_FEES every type but fee', () => {
  expect([...COIN_TYPES].sort()).toEqual(ALL_RECORD_TYPES.filter((type) => RECORD_TYPES[type] === 'coin').sort())
  expect([...ALL_BUT_FEES].sort()).toEqual(ALL_RECORD_TYPES.filter((type) => type !== 'fee').sort())
})
