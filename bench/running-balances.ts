/**
 * bench:running-balances — what the running balances (migration 0017) cost the writes and save the reads.
 *
 * On a cluster of its own (`.wds-bench/running-balances`), appends the same generated chain (5,000
 * blocks: per block 4 ERC-20 transfers of one wallet, 4 of other wallets, a native transfer and its
 * fee every other block) through `appendBlocks` in ranges of 100, with the balance triggers enabled and
 * disabled, alternately, ROUNDS times each. Then reads the wallet's balances at the head and at a
 * middle block both ways: the running balances (one primary-key descent per asset) and the sum over
 * its rows (what /balances did before). Writes bench/results/running-balances.json.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChainBlock, Transfer } from '../service/src/domain/records.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createBalancesStore } from '../service/src/store/balances-store.ts'
import { createTransfersStore, partitionName } from '../service/src/store/transfers-store.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 5_000)
const CHAIN = 'base'
const WALLET = '0x00000000000000000000000000000000000000aa'
const root = join(import.meta.dirname, '..')
const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, '0')}`
const other = (n: number) => hex(0x1000 + (n % 5000), 40)
const TOKENS = [
  '0x00000000000000000000000000000000000000c0',
  '0x00000000000000000000000000000000000000c1',
  '0x00000000000000000000000000000000000000c2',
]

function blocks(): ChainBlock[] {
  const out: ChainBlock[] = []
  for (let number = 1; number <= BLOCKS; number++) {
    const transfers: Transfer[] = []
    const base = { seq: 0, tokenId: null, batchIndex: null, operator: null, blockNumber: number } as const
    for (let k = 0; k < 4; k++) {
      const i = number * 4 + k
      const sends = i % 3 === 0
      const contract = TOKENS[i % 3] as string
      transfers.push({
        ...base,
        txIndex: k,
        txHash: hex(number * 100 + k, 64),
        type: 'erc20',
        from: sends ? WALLET : other(i),
        to: sends ? other(i) : WALLET,
        value: BigInt(i),
        contractAddress: contract,
        logIndex: k,
      })
      transfers.push({
        ...base,
        txIndex: 20 + k,
        txHash: hex(number * 100 + 20 + k, 64),
        type: 'erc20',
        from: other(i + 7),
        to: other(i + 11),
        value: BigInt(i),
        contractAddress: contract,
        logIndex: 20 + k,
      })
    }
    if (number % 2 === 1) {
      const tx = hex(number * 100 + 10, 64)
      transfers.push({
        ...base,
        txIndex: 10,
        txHash: tx,
        type: 'native',
        from: WALLET,
        to: other(number),
        value: 10n ** 15n,
        contractAddress: null,
        logIndex: null,
      })
      transfers.push({
        ...base,
        txIndex: 10,
        seq: 1,
        txHash: tx,
        type: 'fee',
        from: WALLET,
        to: null,
        value: 10n ** 13n,
        contractAddress: null,
        logIndex: null,
      })
    }
    transfers.sort((a, b) => a.txIndex - b.txIndex || a.seq - b.seq)
    out.push({ number, hash: hex(number, 64), parentHash: hex(number - 1, 64), timestamp: 1_600_000_000 + number * 2, transfers })
  }
  return out
}

async function timeReads(read: () => Promise<unknown>, repeats = 200): Promise<number> {
  await read()
  const samples: number[] = []
  for (let i = 0; i < repeats; i++) {
    const started = performance.now()
    await read()
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  return Math.round((samples[Math.floor(samples.length / 2)] as number) * 1000) / 1000
}

const database = await openDatabase({ dataDir: join(root, '.wds-bench', 'running-balances') }, createLogger('warn'), {
  attach: false,
  applicationName: 'wds-bench',
})
const { db } = database
try {
  const chain = blocks()
  const rows = chain.reduce((n, b) => n + b.transfers.length, 0)
  const store = createTransfersStore(db)
  const writes: Record<'withTriggers' | 'withoutTriggers', number[]> = { withTriggers: [], withoutTriggers: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['withoutTriggers', 'withTriggers'] as const) {
      await db.query(`DROP TABLE IF EXISTS ${partitionName(CHAIN)}`)
      for (const table of ['blocks', 'chain_states', 'balance_history', 'wallet_balances'])
        await db.query(`DELETE FROM ${table} WHERE chain = $1`, [CHAIN])
      await store.openChain(CHAIN, 1)
      if (mode === 'withoutTriggers') await db.query(`ALTER TABLE ${partitionName(CHAIN)} DISABLE TRIGGER USER`)
      await db.query('CHECKPOINT')
      const started = performance.now()
      for (let i = 0; i < chain.length; i += 100) await store.appendBlocks(CHAIN, i, chain.slice(i, i + 100), [])
      writes[mode].push(Math.round(performance.now() - started) / 1000)
      console.log(mode, writes[mode].at(-1), 's')
    }
  }
  await store.buildHistoryIndexes(CHAIN)
  await db.query('ANALYZE balance_history; ANALYZE wallet_balances')
  const balances = createBalancesStore(db)
  const middle = Math.floor(BLOCKS / 2)
  const reads = {
    head: {
      runningMs: await timeReads(() => balances.findRunningBalances(CHAIN, WALLET, BLOCKS)),
      sumOfRowsMs: await timeReads(() => balances.sumMovements(CHAIN, WALLET, 0, BLOCKS), 20),
    },
    middleBlock: {
      runningMs: await timeReads(() => balances.findRunningBalances(CHAIN, WALLET, middle)),
      sumOfRowsMs: await timeReads(() => balances.sumMovements(CHAIN, WALLET, 0, middle), 20),
    },
  }
  const running = await balances.findRunningBalances(CHAIN, WALLET, middle)
  const summed = await balances.sumMovements(CHAIN, WALLET, 0, middle)
  const equal = [...summed].every(([asset, net]) => (running.get(asset) ?? 0n) === net)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  const { rows: sizes } = await db.query<{ history: string; current: string }>(
    `SELECT pg_total_relation_size('balance_history')::text AS history, pg_total_relation_size('wallet_balances')::text AS current`,
  )
  const result = {
    benchmark: 'running-balances',
    measuredAt: new Date().toISOString(),
    chain: { blocks: BLOCKS, transfers: rows, walletTransfers: BLOCKS * 4 + BLOCKS },
    writes: {
      ...writes,
      appendSlowdown: Math.round((median(writes.withTriggers) / median(writes.withoutTriggers)) * 100) / 100,
    },
    reads,
    runningEqualsSumOfRows: equal,
    runningBalanceBytesPerTransfer: Math.round((Number(sizes[0]?.history) + Number(sizes[0]?.current)) / rows),
  }
  await writeFile(join(root, 'bench', 'results', 'running-balances.json'), `${JSON.stringify(result, null, 2)}\n`)
  console.log(JSON.stringify(result, null, 2))
} finally {
  await database.close()
}
