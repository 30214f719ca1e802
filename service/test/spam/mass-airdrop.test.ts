import { afterEach, beforeEach, expect, test } from 'vitest'
import { createSpamFlags } from '../../src/api/wallets/spam-flags.ts'
import type { ChainBlock, Transfer } from '../../src/domain/records.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import type { Queryable } from '../../src/store/read-pools.ts'
import { createRecipientCounts, createSpamStore } from '../../src/store/spam-store.ts'
import type { StoredTransfer } from '../../src/store/transfers-reader.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/**
 * mass-airdrop over the spam store's three reads (the wallet's first receipts of each token, their
 * transactions' recipient counts, the senders the wallet sent to), on PostgreSQL: a drop to 20
 * addresses flags its token, a transfer from someone the wallet paid does not, and a transaction's
 * recipients are counted once for the process (spam-evm.test.ts runs the reason through the API).
 */

const CHAIN = 'ethereum'
const WALLET = `0x${'aa'.repeat(20)}`
const DROPPER = `0x${'d0'.repeat(20)}`
const FRIEND = `0x${'f1'.repeat(20)}`
const DROPPED = `0x${'c1'.repeat(20)}`
const GIFTED = `0x${'c2'.repeat(20)}`
const others = Array.from({ length: 19 }, (_, i) => `0x${(i + 16).toString(16).repeat(20)}`)

let database: TestDatabase
beforeEach(async () => {
  database = await createTestDatabase()
})
afterEach(async () => {
  await database?.drop()
})

const tokenTransfer = (block: number, txIndex: number, seq: number, from: string, to: string, token: string): Transfer => ({
  blockNumber: block,
  txIndex,
  seq,
  txHash: `0x${block.toString(16).padStart(60, '0')}${txIndex.toString(16).padStart(4, '0')}`,
  type: 'erc20',
  from,
  to,
  value: 1n,
  contractAddress: token,
  tokenId: null,
  logIndex: seq,
  batchIndex: null,
  operator: null,
})

const blockOf = (number: number, transfers: Transfer[]): ChainBlock => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(number - 1).toString(16).padStart(64, '0')}`,
  timestamp: 1_700_000_000 + number * 12,
  transfers,
})

const stored = (t: Transfer): StoredTransfer => ({
  ...t,
  chain: CHAIN,
  blockTime: new Date(0),
  value: '1',
  tokenId: null,
  counterparties: null,
})

test('a drop to 20 addresses flags its token, one from an address the wallet sent to does not; recipients are counted once', async () => {
  const writer = createChainWriter(database.db)
  await writer.openChain(CHAIN, 1)
  // block 1: the wallet pays FRIEND; block 2: DROPPER gives DROPPED to the wallet and 19 others in one
  // transaction, FRIEND gives GIFTED to the wallet and 19 others in another
  const drop = [WALLET, ...others].map((to, i) => tokenTransfer(2, 0, i, DROPPER, to, DROPPED))
  const gift = [WALLET, ...others].map((to, i) => tokenTransfer(2, 1, i, FRIEND, to, GIFTED))
  await writer.appendBlocks(
    CHAIN,
    0,
    [blockOf(1, [tokenTransfer(1, 0, 0, WALLET, FRIEND, GIFTED)]), blockOf(2, [...drop, ...gift])],
    [],
  )
  await writer.buildHistoryIndexes(CHAIN)

  const statements: string[] = []
  const db: Queryable = {
    query: ((text: string, values?: unknown[]) => {
      statements.push(text)
      return database.db.query(text, values)
    }) as Queryable['query'],
  }
  const recipientCounts = createRecipientCounts()
  const flagsOf = () => createSpamFlags({ store: createSpamStore(db, { recipientCounts }), findTokens: async () => new Map() })
  const page = [stored(drop[0] as Transfer), stored(gift[0] as Transfer)]
  const counting = () => statements.filter((s) => s.includes('count(DISTINCT t.to_address)')).length

  const first = await flagsOf().flag(page, WALLET)
  expect(first.map((v) => v.reasons.includes('mass-airdrop'))).toEqual([true, false])
  expect(counting()).toBe(1)
  // another request's flags (a read scope of its own) over the same process counts: no count asked again
  const again = await flagsOf().flag(page, WALLET)
  expect(again).toEqual(first)
  expect(counting()).toBe(1)
  expect(recipientCounts.size).toBe(2)
})
