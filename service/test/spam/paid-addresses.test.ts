import { afterEach, beforeEach, expect, test } from 'vitest'
import { createSpamFlags } from '../../src/api/wallets/spam-flags.ts'
import type { ChainBlock, Transfer } from '../../src/domain/records.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import { createExplorerWalletsStore } from '../../src/store/explorer-wallets-store.ts'
import { createSpamStore } from '../../src/store/spam-store.ts'
import type { StoredTransfer } from '../../src/store/transfers-reader.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/**
 * The paid addresses (migration 0030) as the writers keep them: filled after a first backfill,
 * written with each append, rolled back with a reorg, and stored with an explorer page; and the
 * address-poisoning verdict that reads them.
 */

const CHAIN = 'ethereum'
const WALLET = `0x${'aa'.repeat(20)}`
const GENUINE = `0x3c44${'11'.repeat(16)}93bc`
const EARLIER = `0x5e5e${'22'.repeat(16)}7070`
/** Shares GENUINE's first and last 4 hex digits. */
const LOOK_ALIKE = `0x3c44${'99'.repeat(16)}93bc`
const TOKEN = `0x${'c1'.repeat(20)}`

let database: TestDatabase
beforeEach(async () => {
  database = await createTestDatabase()
})
afterEach(async () => {
  await database?.drop()
})

function record(block: number, txIndex: number, seq: number, fields: Pick<Transfer, 'type' | 'from' | 'to' | 'value'>): Transfer {
  const token = fields.type === 'erc20'
  return {
    blockNumber: block,
    txIndex,
    seq,
    txHash: `0x${block.toString(16).padStart(60, '0')}${txIndex.toString(16).padStart(4, '0')}`,
    contractAddress: token ? TOKEN : null,
    tokenId: null,
    logIndex: token ? 0 : null,
    batchIndex: token ? 0 : null,
    operator: null,
    ...fields,
  }
}

/** A token payment the wallet signed: the transfer and its fee. */
const signedPayment = (block: number, to: string): Transfer[] => [
  record(block, 0, 0, { type: 'erc20', from: WALLET, to, value: 5n }),
  record(block, 0, 1, { type: 'fee', from: WALLET, to: null, value: 21_000n }),
]

function blockOf(number: number, transfers: Transfer[], fork = ''): ChainBlock {
  const hash = (n: number, tag: string) => `0x${tag.padEnd(4, '0')}${n.toString(16).padStart(60, '0')}`
  return { number, hash: hash(number, fork), parentHash: hash(number - 1, ''), timestamp: 1_700_000_000 + number * 12, transfers }
}

const stored = (t: Transfer): StoredTransfer => ({
  ...t,
  chain: CHAIN,
  blockTime: new Date(0),
  value: t.value.toString(),
  tokenId: null,
  counterparties: null,
})

async function paidPairs(): Promise<string[]> {
  const { rows } = await database.db.query<{ pair: string }>(
    `SELECT wds_unpack(wallet) || ' ' || address || ' ' || first_block AS pair FROM paid_addresses ORDER BY address, wallet`,
  )
  return rows.map((r) => r.pair)
}

/** The reasons the look-alike's dust to the wallet gets. */
async function poisoningOf(): Promise<string[]> {
  const flags = createSpamFlags({
    store: createSpamStore(database.db),
    findTokens: async () => new Map(),
  })
  const dust = stored(record(9, 3, 0, { type: 'native', from: LOOK_ALIKE, to: WALLET, value: 1n }))
  const [verdict] = await flags.flag([dust], WALLET)
  return verdict?.reasons ?? []
}

test('a first backfill’s payments are filled with the history indexes, later ones written as appended, and a reorg removes those it rolls back', async () => {
  const writer = createChainWriter(database.db)
  await writer.openChain(CHAIN, 1)
  // the first backfill: a payment to EARLIER (block 1) and GENUINE (block 2), and an unsigned token
  // transfer out of the wallet (no fee of the wallet's: not a payment)
  await writer.appendBlocks(CHAIN, 0, [blockOf(1, signedPayment(1, EARLIER)), blockOf(2, signedPayment(2, GENUINE))], [])
  await writer.appendBlocks(
    CHAIN,
    2,
    [blockOf(3, [record(3, 0, 0, { type: 'erc20', from: WALLET, to: LOOK_ALIKE, value: 7n })])],
    [],
  )
  expect(await paidPairs()).toEqual([])
  await writer.buildHistoryIndexes(CHAIN)
  expect(await paidPairs()).toEqual([`${WALLET} ${GENUINE} 2`, `${WALLET} ${EARLIER} 1`])
  expect(await poisoningOf()).toEqual(['address-poisoning'])

  // served: appended blocks write theirs; a later payment keeps the first block
  await writer.appendBlocks(CHAIN, 3, [blockOf(4, signedPayment(4, EARLIER))], [])
  await writer.appendBlocks(
    CHAIN,
    4,
    [blockOf(5, [record(5, 0, 0, { type: 'native', from: `0x${'bb'.repeat(20)}`, to: GENUINE, value: 1n })])],
    [],
  )
  expect(await paidPairs()).toEqual([`${WALLET} ${GENUINE} 2`, `0x${'bb'.repeat(20)} ${GENUINE} 5`, `${WALLET} ${EARLIER} 1`])

  // a reorg back to block 1: the payment to GENUINE (block 2) is gone, so its look-alike imitates no
  // one the wallet paid; EARLIER was first paid in block 1 and stays
  await writer.rollbackTo(CHAIN, 1)
  expect(await paidPairs()).toEqual([`${WALLET} ${EARLIER} 1`])
  expect(await poisoningOf()).toEqual([])
})

test('an explorer page stores the payments of its blocks, a fee stored with another wallet’s page included', async () => {
  const explorer = createExplorerWalletsStore(database.db)
  await explorer.openChain(CHAIN)
  const [payment, fee] = signedPayment(6, GENUINE) as [Transfer, Transfer]
  const page = (transfers: Transfer[]) => ({ blocks: [blockOf(6, transfers)], tokens: [], position: {}, complete: true })
  // the fee came with the wallet's own page, the token transfer with the recipient's
  await explorer.savePage(CHAIN, WALLET, page([fee]))
  expect(await paidPairs()).toEqual([])
  await explorer.savePage(CHAIN, GENUINE, page([payment]))
  expect(await paidPairs()).toEqual([`${WALLET} ${GENUINE} 6`])
  expect(await poisoningOf()).toEqual(['address-poisoning'])
})
