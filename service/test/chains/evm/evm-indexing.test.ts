import { type Address, erc20Abi, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource, type EvmCapabilities } from '../../../src/chains/evm/evm-source.ts'
import { createIndexer } from '../../../src/ingestion/indexer.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createChainWriter } from '../../../src/store/chain-writer.ts'
import { createTransfersReader, type HistoryPosition } from '../../../src/store/transfers-reader.ts'
import { type Anvil, startAnvil } from '../../helpers/anvil.ts'
import { type Artifacts, compileFixtures } from '../../helpers/contracts.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'
import { clientsFor, playScriptedHistory, type ScriptedChain } from '../../helpers/scripted-chain.ts'
import { type Row, readTransfers, rowsFromSource } from '../../helpers/transfers.ts'

const logger = createLogger('silent')
const CHAIN = 'ethereum'

let anvil: Anvil
let database: TestDatabase
let artifacts: Artifacts
let script: ScriptedChain
let rows: Row[]

const lower = (a: string) => a.toLowerCase()
const sourceFor = (node: Anvil, capabilities?: EvmCapabilities) =>
  createEvmSource({
    chain: CHAIN,
    rpc: createRpcClient({ urls: [node.url], logger }),
    logger,
    ...(capabilities ? { capabilities } : {}),
  })

beforeAll(async () => {
  ;[anvil, database, artifacts] = await Promise.all([startAnvil({ chainId: 1 }), createTestDatabase(), compileFixtures()])
  script = await playScriptedHistory(anvil, artifacts)
  const indexer = createIndexer({
    chain: CHAIN,
    source: sourceFor(anvil),
    store: createChainWriter(database.db),
    logger,
    startBlock: 0,
    rangeSize: 5,
    stopAtHead: true,
  })
  await indexer.run(new AbortController().signal)
  rows = await readTransfers(database.db, CHAIN)
})
afterAll(async () => {
  await anvil?.close()
  await database?.drop()
})

/** The rows of one scripted transaction, without the position columns. */
function rowsOf(step: string) {
  const hash = script.tx[step]
  if (hash === undefined) throw new Error(`no step ${step}`)
  return rows
    .filter((r) => r.txHash === hash)
    .map(({ type, from, to, value, contract, tokenId, batchIndex, operator }) => ({
      type,
      from,
      to,
      value,
      contract,
      tokenId,
      batchIndex,
      operator,
    }))
}

async function feeOf(step: string) {
  const receipt = await clientsFor(anvil).public.getTransactionReceipt({ hash: script.tx[step] as `0x${string}` })
  return {
    type: 'fee',
    from: lower(receipt.from),
    to: null,
    value: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
    contract: null,
    tokenId: null,
    batchIndex: null,
    operator: null,
  }
}

const coin = (from: Address, to: Address, value: bigint, type: 'native' | 'internal' = 'native') => ({
  type,
  from: lower(from),
  to: lower(to),
  value: value.toString(),
  contract: null,
  tokenId: null,
  batchIndex: null,
  operator: null,
})

describe('each kind of row, from a scripted history on a real anvil node', () => {
  test('native transfers: value moved by a successful transaction, self-transfers included, zero value none', async () => {
    const { alice, bob } = script.accounts
    expect(rowsOf('native')).toEqual([await feeOf('native'), coin(alice, bob, parseEther('1'))])
    expect(rowsOf('selfTransfer')).toEqual([await feeOf('selfTransfer'), coin(alice, alice, parseEther('0.5'))])
    expect(rowsOf('zeroValue')).toEqual([await feeOf('zeroValue')])
  })

  test('a reverted transaction moves nothing but its fee', async () => {
    expect(rowsOf('reverted')).toEqual([await feeOf('reverted')])
  })

  test('internal transfers: forwarded, split, created with value, self-destructed; none from a reverted frame', async () => {
    const { alice, bob, carol, dave } = script.accounts
    const { forwarder, vault } = script.contracts
    expect(rowsOf('forward')).toEqual([
      await feeOf('forward'),
      coin(alice, forwarder, parseEther('0.1')),
      coin(forwarder, carol, parseEther('0.1'), 'internal'),
    ])
    expect(rowsOf('split')).toEqual([
      await feeOf('split'),
      coin(alice, forwarder, parseEther('0.3')),
      coin(forwarder, bob, parseEther('0.15'), 'internal'),
      coin(forwarder, carol, parseEther('0.15'), 'internal'),
    ])
    expect(rowsOf('revertedFrame')).toEqual([await feeOf('revertedFrame'), coin(alice, forwarder, parseEther('0.2'))])
    expect(rowsOf('create')).toEqual([
      await feeOf('create'),
      coin(alice, forwarder, parseEther('0.05')),
      coin(forwarder, vault, parseEther('0.05'), 'internal'),
    ])
    expect(rowsOf('selfDestruct')).toEqual([await feeOf('selfDestruct'), coin(vault, dave, parseEther('0.05'), 'internal')])
  })

  test('ERC-20: mint, transfer, self-transfer, burn, and many transfers in one transaction', async () => {
    const { alice, bob, carol } = script.accounts
    const zero = '0x0000000000000000000000000000000000000000'
    const erc20 = (from: string, to: string, value: bigint) => ({
      type: 'erc20',
      from: lower(from),
      to: lower(to),
      value: value.toString(),
      contract: lower(script.contracts.token),
      tokenId: null,
      batchIndex: 0,
      operator: null,
    })
    expect(rowsOf('erc20Mint')).toEqual([await feeOf('erc20Mint'), erc20(zero, alice, 1_000_000_000n)])
    expect(rowsOf('erc20Transfer')).toEqual([await feeOf('erc20Transfer'), erc20(alice, bob, 250_000_000n)])
    expect(rowsOf('erc20SelfTransfer')).toEqual([await feeOf('erc20SelfTransfer'), erc20(alice, alice, 1n)])
    expect(rowsOf('erc20Burn')).toEqual([await feeOf('erc20Burn'), erc20(bob, zero, 50_000_000n)])
    expect(rowsOf('erc20Many')).toEqual([
      await feeOf('erc20Many'),
      erc20(alice, bob, 10n),
      erc20(alice, carol, 10n),
      erc20(alice, carol, 10n),
    ])
  })

  test('ERC-721: mint, transfer and burn, each with its token ID', async () => {
    const { alice, bob } = script.accounts
    const zero = '0x0000000000000000000000000000000000000000'
    const nft = (from: string, to: string, tokenId: bigint) => ({
      type: 'erc721',
      from: lower(from),
      to: lower(to),
      value: '1',
      contract: lower(script.contracts.nft),
      tokenId: tokenId.toString(),
      batchIndex: 0,
      operator: null,
    })
    expect(rowsOf('nftMint1')).toEqual([await feeOf('nftMint1'), nft(zero, alice, 1n)])
    expect(rowsOf('nftTransfer')).toEqual([await feeOf('nftTransfer'), nft(alice, bob, 1n)])
    expect(rowsOf('nftBurn')).toEqual([await feeOf('nftBurn'), nft(alice, zero, 2n)])
  })

  test('ERC-1155: TransferSingle, and one row per TransferBatch element, with the operator', async () => {
    const { alice, bob, carol } = script.accounts
    const zero = '0x0000000000000000000000000000000000000000'
    const multi = (from: string, to: string, id: bigint, value: bigint, batchIndex = 0) => ({
      type: 'erc1155',
      from: lower(from),
      to: lower(to),
      value: value.toString(),
      contract: lower(script.contracts.multi),
      tokenId: id.toString(),
      batchIndex,
      operator: lower(alice),
    })
    expect(rowsOf('multiMint')).toEqual([await feeOf('multiMint'), multi(zero, alice, 7n, 100n)])
    expect(rowsOf('multiMintBatch')).toEqual([
      await feeOf('multiMintBatch'),
      multi(zero, alice, 1n, 10n, 0),
      multi(zero, alice, 2n, 20n, 1),
      multi(zero, alice, 3n, 30n, 2),
    ])
    expect(rowsOf('multiBatchTransfer')).toEqual([
      await feeOf('multiBatchTransfer'),
      multi(alice, bob, 1n, 5n, 0),
      multi(alice, bob, 3n, 6n, 1),
    ])
    expect(rowsOf('multiTransfer')).toEqual([await feeOf('multiTransfer'), multi(alice, carol, 7n, 40n)])
  })

  test('every transaction of the history has exactly one fee row, and positions are unique', async () => {
    const fees = rows.filter((r) => r.type === 'fee')
    expect(fees.map((r) => r.txHash).sort()).toEqual(Object.values(script.tx).sort())
    const positions = new Set(rows.map((r) => `${r.block}/${r.txIndex}/${r.seq}`))
    expect(positions.size).toBe(rows.length)
  })
})

describe('the rows reconcile with the node’s own balances', () => {
  test('native: every account’s rows sum to its balance change since genesis', async () => {
    const client = clientsFor(anvil).public
    const { alice, bob, carol, dave } = script.accounts
    const { forwarder, vault } = script.contracts
    for (const account of [alice, bob, carol, dave, forwarder, vault]) {
      const a = lower(account)
      let net = 0n
      for (const r of rows) {
        if (r.type !== 'native' && r.type !== 'internal' && r.type !== 'fee') continue
        if (r.from === a) net -= BigInt(r.value)
        if (r.to === a) net += BigInt(r.value)
      }
      const [before, after] = await Promise.all([
        client.getBalance({ address: account, blockNumber: 0n }),
        client.getBalance({ address: account, blockNumber: BigInt(script.head) }),
      ])
      expect({ account, net: net.toString() }).toEqual({ account, net: (after - before).toString() })
    }
  })

  test('ERC-20 and ERC-1155: the rows sum to balanceOf; ERC-721: the last row of a token names its owner', async () => {
    const client = clientsFor(anvil).public
    const { alice, bob, carol } = script.accounts
    const sum = (type: string, holder: string, tokenId: string | null) =>
      rows
        .filter((r) => r.type === type && r.tokenId === tokenId)
        .filter((r) => r.contract === lower(type === 'erc20' ? script.contracts.token : script.contracts.multi))
        .reduce(
          (n, r) => n + (r.to === lower(holder) ? BigInt(r.value) : 0n) - (r.from === lower(holder) ? BigInt(r.value) : 0n),
          0n,
        )
    for (const holder of [alice, bob, carol]) {
      const balance = await client.readContract({
        address: script.contracts.token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [holder],
      })
      expect(sum('erc20', holder, null)).toBe(balance)
      for (const id of [1n, 2n, 3n, 7n]) {
        const held = await client.readContract({
          address: script.contracts.multi,
          abi: artifacts.TestMultiToken.abi,
          functionName: 'balanceOf',
          args: [id, holder],
        })
        expect(sum('erc1155', holder, id.toString())).toBe(held)
      }
    }
    for (const id of [1n, 2n]) {
      const owner = await client.readContract({
        address: script.contracts.nft,
        abi: artifacts.TestNft.abi,
        functionName: 'ownerOf',
        args: [id],
      })
      const last = rows.filter((r) => r.type === 'erc721' && r.tokenId === id.toString()).at(-1)
      expect(last?.to).toBe(lower(owner as string))
    }
  })
})

describe('node capabilities', () => {
  test('trace_block and the callTracer, block receipts and per-transaction receipts give the same rows', async () => {
    const variants: EvmCapabilities[] = [
      { traces: 'trace_block', blockReceipts: true },
      { traces: 'debug_traceBlockByNumber', blockReceipts: true },
      { traces: 'debug_traceBlockByNumber', blockReceipts: false },
    ]
    for (const capabilities of variants) {
      expect(await rowsFromSource(sourceFor(anvil, capabilities), 0, script.head)).toEqual(rows)
    }
  })

  test('a node without traces still gives every row but internal ones', async () => {
    const withoutTraces = await rowsFromSource(sourceFor(anvil, { traces: 'none', blockReceipts: true }), 0, script.head)
    expect(withoutTraces).toEqual(rows.filter((r) => r.type !== 'internal'))
  })
})

test('token metadata: strings, bytes32, reverting and missing methods, absurd decimals', async () => {
  const { rows: tokens } = await database.db.query(
    'SELECT contract_address AS address, name, symbol, decimals FROM tokens WHERE chain = $1 ORDER BY contract_address',
    [CHAIN],
  )
  const { token, nft, multi, bytes32Token, revertingToken } = script.contracts
  expect(tokens).toEqual(
    [
      { address: lower(token), name: 'Test Dollar', symbol: 'TUSD', decimals: 6 },
      { address: lower(nft), name: 'Test NFT', symbol: 'TNFT', decimals: null },
      { address: lower(multi), name: null, symbol: null, decimals: null },
      { address: lower(bytes32Token), name: 'Maker', symbol: 'MKR', decimals: null },
      { address: lower(revertingToken), name: null, symbol: null, decimals: 6 },
    ].sort((a, b) => a.address.localeCompare(b.address)),
  )
})

describe('a wallet’s history, newest first by keyset', () => {
  const key = (r: { block: number; txIndex: number; seq: number }) => [r.block, r.txIndex, r.seq] as const
  const newestFirst = (a: Row, b: Row) => b.block - a.block || b.txIndex - a.txIndex || b.seq - a.seq

  test('pages of any size give every transfer of the wallet exactly once, in order, per direction', async () => {
    const store = createTransfersReader(database.db)
    for (const account of Object.values(script.accounts)) {
      const address = lower(account)
      const expected = {
        out: rows.filter((r) => r.from === address),
        in: rows.filter((r) => r.to === address),
        both: rows.filter((r) => r.from === address || r.to === address),
      }
      for (const direction of ['out', 'in', 'both'] as const) {
        for (const limit of [1, 3, 100]) {
          const seen: (readonly [number, number, number])[] = []
          let before: HistoryPosition | undefined
          for (;;) {
            const page = await store.listWalletTransfers({ chain: CHAIN, address, direction, before, limit })
            expect(page.length).toBeLessThanOrEqual(limit)
            seen.push(...page.map((t) => [t.blockNumber, t.txIndex, t.seq] as const))
            const last = page.at(-1)
            if (page.length < limit || last === undefined) break
            before = last
          }
          expect(seen).toEqual([...expected[direction]].sort(newestFirst).map(key))
        }
      }
    }
  })
})

test('a chain’s first backfill bulk-loads without the wallet-history indexes and builds them at the head', async () => {
  const chain = 'base'
  const partition = 'transfers_base'
  const indexes = async () =>
    (
      await database.db.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY 1', [
        partition,
      ])
    ).rows.map((r) => r.indexname)
  const store = createChainWriter(database.db)
  const duringBackfill: string[][] = []
  const watched: typeof store = {
    ...store,
    async appendBlocks(...args) {
      duringBackfill.push(await indexes())
      return store.appendBlocks(...args)
    },
  }
  await createIndexer({
    chain,
    source: sourceFor(anvil),
    store: watched,
    logger,
    startBlock: 0,
    rangeSize: 5,
    stopAtHead: true,
  }).run(new AbortController().signal)
  expect(duringBackfill.length).toBeGreaterThan(3)
  const historyIndex = (n: string) => n.endsWith('_by_from') || n.endsWith('_by_to') || n.endsWith('_by_to_token')
  expect(duringBackfill.every((names) => !names.some(historyIndex))).toBe(true)
  expect((await indexes()).filter(historyIndex)).toEqual([
    'transfers_base_by_from',
    'transfers_base_by_to',
    'transfers_base_by_to_token',
  ])
  const { rows } = await database.db.query('SELECT history_indexed_at IS NOT NULL AS built FROM chain_states WHERE chain = $1', [
    chain,
  ])
  expect(rows[0]).toEqual({ built: true })
  // and analysed (issue 13): the planner has statistics on the columns the wallet statements filter on
  const stats = await database.db.query<{ attname: string }>(
    "SELECT attname FROM pg_stats WHERE schemaname = 'public' AND tablename = 'transfers_base'",
  )
  expect(stats.rows.map((r) => r.attname)).toEqual(
    expect.arrayContaining(['block_number', 'type', 'from_address', 'to_address', 'contract_address']),
  )
  // the same rows as the chain indexed before, and the wallet query now reads them through the index
  expect((await readTransfers(database.db, chain)).length).toBe((await readTransfers(database.db, CHAIN)).length)
  const client = await database.db.connect()
  try {
    await client.query('SET enable_seqscan = off') // a table this small would otherwise be scanned whole
    const plan = await client.query(
      `EXPLAIN SELECT * FROM transfers WHERE chain = 'base' AND from_address = wds_pack($1) ORDER BY block_number DESC, tx_index DESC, seq DESC LIMIT 10`,
      [lower(script.accounts.alice)],
    )
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('transfers_base_by_from')
  } finally {
    await client.query('RESET enable_seqscan')
    client.release()
  }
})
