import type { Address, Hash } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { formatUnits } from '../../src/lib/decimal.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { clientsFor, playScriptedHistory, type ScriptedChain } from '../helpers/scripted-chain.ts'

/**
 * GET /v1/wallets/{address}/reconciliation through HTTP on two real nodes: a plain anvil with the
 * scripted history (every kind of record) indexed as `ethereum`, and an anvil in OP-stack mode
 * (`--network optimism`: deposit transactions with `mint`, one of them reverting) indexed as
 * `optimism`, `base` and `blast`. Then a balance changes with no transaction (anvil_setBalance, as
 * Blast's rebasing yield does): the difference is shown, explained by Blast's profile, and on Base,
 * whose profile knows no such movement, said to be unknown.
 */

const logger = createLogger('silent')
const ETHER = 10n ** 18n
const hex = (n: bigint) => `0x${n.toString(16)}`

let plain: Anvil
let op: Anvil
let t: ServedTestApp
let key: string
let script: ScriptedChain
let opAccounts: Address[]
let beforeYield: number
let opHead: number
const reverter = '0x00000000000000000000000000000000000000fe'

async function get(path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/** Sends an OP-stack deposit (type 0x7e) minting `mint` to `from`; returns its hash once mined. */
async function deposit(from: Address, to: string, mint: bigint, value: bigint, n: number): Promise<Hash> {
  const hash = await op.rpc<Hash>('eth_sendTransaction', [
    {
      from,
      to,
      value: hex(value),
      mint: hex(mint),
      type: '0x7e',
      sourceHash: `0x${n.toString(16).padStart(64, '0')}`,
      isSystemTx: false,
      gas: '0x30000',
    },
  ])
  await clientsFor(op).public.waitForTransactionReceipt({ hash })
  return hash
}

/** Where the set-up is: said by afterAll when it did not finish (a CI run once hit the hook's timeout). */
let step = 'starting two anvil nodes'

beforeAll(async () => {
  ;[plain, op] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 10, args: ['--network', 'optimism'] })])
  step = 'playing the scripted history on the plain node'
  script = await playScriptedHistory(plain)
  step = 'deposits and a transfer on the OP node'
  opAccounts = (await clientsFor(op).wallet.getAddresses()) as Address[]
  const [alice, bob, carol] = opAccounts as [Address, Address, Address]
  // a contract that always fails (INVALID): a deposit to it keeps its mint and moves no value
  await op.rpc('anvil_setCode', [reverter, '0xfe'])
  await deposit(alice, bob, 2n * ETHER, ETHER / 10n, 1)
  await deposit(carol, reverter, ETHER, ETHER / 2n, 2)
  const wallet = clientsFor(op).wallet
  const sent = await wallet.sendTransaction({ account: bob, to: carol, value: ETHER / 3n, chain: null })
  await clientsFor(op).public.waitForTransactionReceipt({ hash: sent })
  beforeYield = Number(await clientsFor(op).public.getBlockNumber())
  // anvil_setBalance changes the newest block's state: leave block `beforeYield` behind first
  await op.rpc('evm_mine')
  // rebasing yield: carol's balance grows with no transaction
  const carolBalance = await clientsFor(op).public.getBalance({ address: carol })
  await op.rpc('anvil_setBalance', [carol, hex(carolBalance + 12_345n)])
  await op.rpc('evm_mine')
  opHead = Number(await clientsFor(op).public.getBlockNumber())

  step = 'starting the app'
  const nodes: Record<string, Anvil> = { ethereum: plain, optimism: op, base: op, blast: op }
  t = await createServedTestApp(
    {
      chains: {
        ethereum: { urls: [plain.url], startBlock: 0 },
        optimism: { urls: [op.url], startBlock: 0 },
        base: { urls: [op.url], startBlock: 0 },
        blast: { urls: [op.url], startBlock: 0 },
        zora: { urls: ['http://127.0.0.1:1'], startBlock: 0 },
        polygon: { urls: ['http://127.0.0.1:1'], startBlock: 0 },
      },
    },
    {
      findSource: async (chain) => {
        const node = nodes[chain]
        return evmSourceFor(chain, node?.url ?? 'http://127.0.0.1:1', logger)
      },
    },
  )
  for (const chain of ['ethereum', 'optimism', 'base', 'blast']) {
    step = `indexing ${chain}`
    await indexToHead(t.db, chain, (nodes[chain] as Anvil).url, { logger })
  }
  // zora: indexed from the OP node, then its node goes away (reconciliation needs the node's answer)
  step = 'indexing zora'
  await indexToHead(t.db, 'zora', op.url, { logger })
  step = 'creating a key'
  key = (await t.createKey('ledger@example.com', 'pro')).key
  step = 'done'
}, 120_000)
afterAll(async () => {
  if (step !== 'done') console.error(`evm-reconciliation-api: the set-up did not finish; it was ${step}`)
  await t?.close()
  await Promise.all([plain?.close(), op?.close()])
})

describe('reconciliation: the records add up to what the node holds', () => {
  test('every scripted account and contract on the plain node, at several blocks: zero difference on the coin and every token', async () => {
    const { alice, bob, carol, dave } = script.accounts
    const { forwarder, vault } = script.contracts
    let assets = 0
    for (const address of [alice, bob, carol, dave, forwarder, vault]) {
      for (const atBlock of [3, 15, script.head]) {
        const { status, body } = await get(`/v1/wallets/${address}/reconciliation?chain=ethereum&atBlock=${atBlock}`)
        expect(status).toBe(200)
        expect(body.asOf.blockNumber).toBe(atBlock)
        for (const asset of body.assets) {
          if (asset.node === null) {
            // the scripted tokens with no working balanceOf (one reverts, one has none): no node answer, said so
            const { revertingToken, bytes32Token } = script.contracts
            expect([revertingToken, bytes32Token].map((c) => c.toLowerCase())).toContain(asset.contractAddress)
            expect(asset).toMatchObject({ difference: null, explanation: expect.stringMatching(/balanceOf fails/) })
            continue
          }
          expect({ address, atBlock, ...asset }).toEqual({
            address,
            atBlock,
            ...asset,
            records: asset.node,
            difference: formatUnits(0n, asset.tokenDecimals ?? 0),
            explanation: null,
          })
        }
        const unanswered = body.assets.some((a: { node: string | null }) => a.node === null)
        expect(body.reconciled).toBe(!unanswered)
        assets += body.assets.length
      }
    }
    expect(assets).toBeGreaterThan(20)
  })

  test('OP-stack deposits: the mint is a deposit record from no one, kept when the deposit reverts; the books balance', async () => {
    const [alice, bob, carol] = opAccounts as [Address, Address, Address]
    for (const address of [alice, bob, carol, reverter]) {
      const { status, body } = await get(`/v1/wallets/${address}/reconciliation?chain=optimism&atBlock=${beforeYield}`)
      expect({ status, address, difference: body.assets?.[0]?.difference, reconciled: body.reconciled }).toEqual({
        status: 200,
        address,
        difference: '0.000000000000000000',
        reconciled: true,
      })
    }
    const history = await get(`/v1/wallets/${carol}/transfers?chain=optimism`)
    type Row = Record<string, unknown>
    const deposits = history.body.transfers.filter((r: Row) => r.type === 'deposit')
    expect(deposits.map((r: Record<string, unknown>) => ({ from: r.from, to: r.to, value: r.value }))).toEqual([
      { from: null, to: carol.toLowerCase(), value: '1.000000000000000000' },
    ])
    expect(history.body.transfers.filter((r: Row) => r.type === 'fee' && r.from === carol.toLowerCase())).toEqual([])
  })

  test('a balance that grows with no transaction: shown and explained by the chain (Blast), never forced to zero', async () => {
    const carol = opAccounts[2] as Address
    const blast = await get(`/v1/wallets/${carol}/reconciliation?chain=blast`)
    expect(blast.status).toBe(200)
    expect(blast.body.asOf.blockNumber).toBe(opHead)
    expect(blast.body.reconciled).toBe(false)
    const [coin] = blast.body.assets
    // 10,000 ETH at genesis + a 1 ETH mint (its deposit reverted) + 1/3 ETH from bob; then 12,345 wei of yield
    expect(coin).toMatchObject({ records: '10001.333333333333333333', node: '10001.333333333333345678' })
    expect(coin.difference).toBe('0.000000000000012345')
    expect(coin.explanation).toMatch(/Blast ETH rebases/)

    const base = await get(`/v1/wallets/${carol}/reconciliation?chain=base`)
    expect(base.body.assets[0].difference).toBe('0.000000000000012345')
    expect(base.body.assets[0].explanation).toMatch(/records miss a movement/)
  })
})

describe('reconciliation: bad input and unavailable chains', () => {
  test.each([
    ['/v1/wallets/0x1234/reconciliation?chain=ethereum', 400, 'invalid_address', 'address'],
    ['/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation', 400, 'invalid_parameter', 'chain'],
    ['/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=nochain', 400, 'unknown_chain', 'chain'],
    [
      '/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=ethereum&atBlock=-1',
      400,
      'invalid_parameter',
      'atBlock',
    ],
    [
      '/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=ethereum&atBlock=999999',
      400,
      'invalid_parameter',
      'atBlock',
    ],
    ['/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=ethereum&at=1', 400, 'invalid_parameter', 'at'],
    ['/v1/wallets/So11111111111111111111111111111111111111112/reconciliation?chain=solana', 400, 'invalid_parameter', 'chain'],
    ['/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=arbitrum', 503, 'chain_unavailable', 'chain'],
    ['/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=polygon', 503, 'chain_unavailable', 'chain'],
  ])('%s answers %i %s naming %s', async (path, status, code, param) => {
    const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/)
    const body = (await response.json()) as { code?: string; param?: string }
    expect({ status: response.status, code: body.code, param: body.param }).toEqual({ status, code, param })
  })

  test('a node that does not answer is upstream_error (502), never a 500', async () => {
    const { status, body } = await get('/v1/wallets/0x70997970c51812dc3a010c7d01b50e0d17dc79c8/reconciliation?chain=zora')
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'upstream_error' })
  })
})
