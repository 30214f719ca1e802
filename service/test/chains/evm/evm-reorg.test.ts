import { afterEach, beforeEach, expect, test } from 'vitest'
import { createRpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource, type EvmSource } from '../../../src/chains/evm/evm-source.ts'
import { recordTypesOf } from '../../../src/domain/records.ts'
import { createIndexer } from '../../../src/ingestion/indexer.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createBalancesStore } from '../../../src/store/balances-store.ts'
import { createChainWriter } from '../../../src/store/chain-writer.ts'
import { type Anvil, headOf, payment, sendMined, startAnvil } from '../../helpers/anvil.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'
import { playScriptedHistory } from '../../helpers/scripted-chain.ts'
import { readTransfers, rowsFromSource } from '../../helpers/transfers.ts'

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent')
const CHAIN = 'ethereum'
/**
 * Deeper than every reorg below (up to 9 blocks), and balance checkpoints every 2 final blocks, every
 * third a full one tracking the addresses that moved twice since the previous full one.
 */
const REORG_WINDOW = 12
const CHECKPOINT_BLOCKS = 2

let anvil: Anvil
let database: TestDatabase
let source: EvmSource
let accounts: string[]

beforeEach(async () => {
  ;[anvil, database] = await Promise.all([startAnvil({ chainId: 1 }), createTestDatabase()])
  source = createEvmSource({ chain: CHAIN, rpc: createRpcClient({ urls: [anvil.url], logger }), logger })
  await playScriptedHistory(anvil)
  accounts = await anvil.rpc<string[]>('eth_accounts')
})
afterEach(async () => {
  await anvil?.close()
  await database?.drop()
})

const head = () => headOf(anvil)
const pay = (from: number, to: number, wei: bigint) => payment(accounts[from] as string, accounts[to] as string, wei)
const send = (from: number, to: number, wei: bigint) => sendMined(anvil, pay(from, to, wei))

function indexer(options: { stopAtHead: boolean }) {
  return createIndexer({
    chain: CHAIN,
    source,
    store: createChainWriter(database.db),
    logger,
    startBlock: 0,
    rangeSize: 4,
    pollIntervalMs: 20,
    reorgWindowBlocks: REORG_WINDOW,
    balanceCheckpointBlocks: CHECKPOINT_BLOCKS,
    balanceCheckpointFullEvery: 3,
    balanceTrackedMovements: 2,
    ...options,
  })
}
const indexToHead = () => indexer({ stopAtHead: true }).run(new AbortController().signal)

/** The stored rows must be exactly the canonical chain's, and the stored blocks its hashes. */
async function expectStoreMatchesChain() {
  const tip = await head()
  expect(await readTransfers(database.db, CHAIN)).toEqual(await rowsFromSource(source, 0, tip))
  const { rows } = await database.db.query<{ number: number; hash: string }>(
    'SELECT number, hash FROM blocks WHERE chain = $1 ORDER BY number',
    [CHAIN],
  )
  const canonical = await Promise.all(rows.map(async (r) => (await source.findBlockRef(r.number))?.hash))
  expect(rows.map((r) => r.hash)).toEqual(canonical)
  expect(rows.at(-1)?.number).toBe(tip)
  await expectCheckpointedBalancesMatchRows()
}

/**
 * Balances read through the checkpoints (migration 0020) must equal the plain sums of the stored rows,
 * for every address the rows name, at every block, with the same assets listed; and every checkpoint
 * is of a block still stored.
 */
async function expectCheckpointedBalancesMatchRows() {
  const { rows: heights } = await database.db.query<{ block: string }>(
    'SELECT block_number::text AS block FROM balance_checkpoint_heights WHERE chain = $1 ORDER BY block_number',
    [CHAIN],
  )
  const tip = await head()
  expect(heights.length).toBeGreaterThan(0)
  expect(Number(heights.at(-1)?.block)).toBeLessThanOrEqual(tip)
  // full rows only at full heights, hot rows only at the others, and some of both
  const { rows: kinds } = await database.db.query<{ full: boolean; misplaced: number; rows: number }>(
    `SELECT true AS full, count(*) FILTER (WHERE h.full_checkpoint IS NOT TRUE)::int AS misplaced, count(*)::int AS rows
       FROM balance_checkpoints c LEFT JOIN balance_checkpoint_heights h ON h.chain = c.chain AND h.block_number = c.block_number
      WHERE c.chain = $1
     UNION ALL
     SELECT false, count(*) FILTER (WHERE h.full_checkpoint IS NOT FALSE)::int, count(*)::int
       FROM balance_hot_checkpoints c LEFT JOIN balance_checkpoint_heights h ON h.chain = c.chain AND h.block_number = c.block_number
      WHERE c.chain = $1`,
    [CHAIN],
  )
  expect(kinds.map((k) => k.misplaced)).toEqual([0, 0])
  expect(kinds.every((k) => k.rows > 0)).toBe(true)
  const { rows: addresses } = await database.db.query<{ address: string }>(
    `SELECT DISTINCT wds_unpack(address) AS address FROM (SELECT from_address AS address FROM transfers WHERE chain = $1
                                   UNION SELECT to_address FROM transfers WHERE chain = $1) a WHERE address IS NOT NULL`,
    [CHAIN],
  )
  const balances = createBalancesStore(database.db)
  const mismatches = []
  for (const { address } of addresses) {
    for (let block = 0; block <= tip; block++) {
      const checkpointed = entries(await balances.sumMovements(CHAIN, address, 0, block))
      const { rows } = await database.db.query<{ asset: string; net: string }>(
        `SELECT CASE WHEN type = ANY($5) THEN wds_unpack(contract_address) ELSE '' END AS asset,
                (coalesce(sum(value) FILTER (WHERE to_address = wds_pack($2) AND block_number <= $3), 0)
                 - coalesce(sum(value) FILTER (WHERE from_address = wds_pack($2) AND block_number <= $3), 0))::text AS net
           FROM transfers WHERE chain = $1 AND (from_address = wds_pack($2) OR to_address = wds_pack($2)) AND (type = ANY($4) OR type = ANY($5))
            AND block_number > 0
          GROUP BY 1`,
        [CHAIN, address, block, recordTypesOf('coin'), recordTypesOf('token')],
      )
      const summed = entries(new Map(rows.map((r) => [r.asset, BigInt(r.net)])))
      if (checkpointed !== summed) mismatches.push({ address, block, checkpointed, summed })
    }
  }
  expect(mismatches).toEqual([])
}
const entries = (sums: Map<string, bigint>) =>
  [...sums]
    .map(([asset, net]) => `${asset}=${net}`)
    .sort()
    .join(' ')

test('anvil_reorg: the orphaned blocks’ rows are gone, the new ones are in, nothing twice', async () => {
  await indexToHead()
  const before = await readTransfers(database.db, CHAIN)
  const tip = await head()
  const orphaned = before.filter((r) => r.block > tip - 3).map((r) => r.txHash)
  expect(orphaned.length).toBeGreaterThan(0)

  await anvil.rpc('anvil_reorg', [
    3,
    [
      [pay(1, 3, 7n), 0],
      [pay(2, 3, 11n), 2],
    ],
  ])
  expect(await head()).toBe(tip)
  await indexToHead()

  const after = await readTransfers(database.db, CHAIN)
  expect(after.filter((r) => orphaned.includes(r.txHash))).toEqual([])
  expect(after.filter((r) => r.type === 'native' && r.to === accounts[3]?.toLowerCase()).map((r) => r.value)).toEqual(['7', '11'])
  await expectStoreMatchesChain()
})

test('evm_revert to a snapshot, then a shorter and then a longer replacement chain', async () => {
  const snapshot = await anvil.rpc<string>('evm_snapshot')
  for (let i = 0; i < 6; i++) await send(0, 1, 1000n + BigInt(i))
  await indexToHead()

  await anvil.rpc('evm_revert', [snapshot])
  await send(1, 2, 5n) // one block where six were indexed: the new head is below the stored tip
  await indexToHead()
  await expectStoreMatchesChain()

  for (let i = 0; i < 9; i++) await send(2, 0, 100n + BigInt(i))
  await indexToHead()
  await expectStoreMatchesChain()
})

test('a reorg deeper than one range, while the indexer follows the head', async () => {
  const controller = new AbortController()
  const running = indexer({ stopAtHead: false }).run(controller.signal)
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 5; i++) await send(round % 3, (round + 1) % 3, BigInt(round * 100 + i))
    await new Promise((resolve) => setTimeout(resolve, 60))
    await anvil.rpc('anvil_reorg', [round + 6, [[pay(0, 4, BigInt(round + 1)), 0]]])
  }
  const tip = await head()
  const canonical = (await source.findBlockRef(tip))?.hash
  const storedTip = async () => {
    const { rows } = await database.db.query(
      'SELECT s.indexed_block, b.hash FROM chain_states s LEFT JOIN blocks b ON b.chain = s.chain AND b.number = s.indexed_block WHERE s.chain = $1',
      [CHAIN],
    )
    return rows[0]
  }
  await expect.poll(storedTip, { timeout: 10_000 }).toEqual({ indexed_block: tip, hash: canonical })
  controller.abort()
  await running
  await expectStoreMatchesChain()
})

test('a node that lags behind the indexed block (same chain) is waited for, not taken for a reorg', async () => {
  await indexToHead()
  const before = await readTransfers(database.db, CHAIN)
  const tip = await head()
  const lagging: EvmSource = {
    ...source,
    async getHead() {
      return (await source.findBlockRef(tip - 5)) ?? source.getHead()
    },
  }
  await createIndexer({
    chain: CHAIN,
    source: lagging,
    store: createChainWriter(database.db),
    logger,
    startBlock: 0,
    stopAtHead: true,
  }).run(new AbortController().signal)
  expect(await readTransfers(database.db, CHAIN)).toEqual(before)
  const { rows } = await database.db.query('SELECT indexed_block, latest_block FROM chain_states WHERE chain = $1', [CHAIN])
  expect(rows[0]).toEqual({ indexed_block: tip, latest_block: tip - 5 })
})

test('wds index --rewind below the balance checkpoints removes them; indexed again, balances still equal the rows', async () => {
  for (let i = 0; i < 8; i++) await send(i % 3, (i + 1) % 3, 500n + BigInt(i))
  await indexToHead()
  await expectStoreMatchesChain()
  const heightsAbove = async (block: number) => {
    const { rows } = await database.db.query<{ heights: string; rows: string }>(
      `SELECT (SELECT count(*) FROM balance_checkpoint_heights WHERE chain = $1 AND block_number > $2)::text AS heights,
              (SELECT (SELECT count(*) FROM balance_checkpoints WHERE chain = $1 AND block_number > $2)
                    + (SELECT count(*) FROM balance_hot_checkpoints WHERE chain = $1 AND block_number > $2))::text AS rows`,
      [CHAIN, block],
    )
    return rows[0]
  }
  const tip = await head()
  const rewindTo = tip - REORG_WINDOW - 8
  expect(await heightsAbove(rewindTo)).not.toEqual({ heights: '0', rows: '0' })
  const rewound = await createChainWriter(database.db).rewindChain(CHAIN, REORG_WINDOW + 8)
  expect(rewound).toMatchObject({ from: tip, to: rewindTo })
  expect(await heightsAbove(rewindTo)).toEqual({ heights: '0', rows: '0' })

  // the blocks above are indexed again (and more): new checkpoints continue from the ones left
  for (let i = 0; i < 4; i++) await send(2, 1, 900n + BigInt(i))
  await indexToHead()
  await expectStoreMatchesChain()
})
