import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { formatUnits } from '../../src/lib/decimal.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { clientsFor, playScriptedHistory, type ScriptedChain } from '../helpers/scripted-chain.ts'

/**
 * Balances through the HTTP API on a scripted anvil history, compared with what the node itself
 * answers (eth_getBalance, balanceOf) at the same blocks. The same node is indexed twice: as
 * `ethereum` from block 0 (the genesis allocations are the opening balances) and as `optimism` from
 * block 12 (everything before is the opening balance). Both with a reorg window of 2 blocks and a
 * balance checkpoint every 3 final blocks, every other one full and tracking the addresses that moved
 * twice, so that the balances at most blocks compared are read from checkpoints (migration 0020).
 */

const logger = createLogger('silent')
const lower = (a: string) => a.toLowerCase()
const START_BLOCK_LATE = 12

let anvil: Anvil
let t: ServedTestApp
let baseUrl: string
let key: string
let script: ScriptedChain
let nodeCalls = 0

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  const body: ReturnType<typeof JSON.parse> = await response.json()
  return { status: response.status, body }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 })
  script = await playScriptedHistory(anvil)
  const sourceFor = (chain: string) => evmSourceFor(chain, anvil.url, logger)
  t = await createServedTestApp(
    {
      chains: {
        ethereum: { urls: [anvil.url], startBlock: 0 },
        optimism: { urls: [anvil.url], startBlock: START_BLOCK_LATE },
        base: { urls: ['http://127.0.0.1:1'], startBlock: 0 },
      },
    },
    {
      findSource: async (chain) => {
        const source = sourceFor(chain)
        return {
          ...source,
          fetchBalances: (...args) => {
            nodeCalls++
            return source.fetchBalances(...args)
          },
        }
      },
    },
  )
  for (const [chain, startBlock] of [
    ['ethereum', 0],
    ['optimism', START_BLOCK_LATE],
  ] as const) {
    await indexToHead(t.db, chain, anvil.url, {
      startBlock,
      logger,
      reorgWindowBlocks: 2,
      balanceCheckpointBlocks: 3,
      balanceCheckpointFullEvery: 2,
      balanceTrackedMovements: 2,
    })
  }
  baseUrl = t.baseUrl
  key = (await t.createKey('balances@example.com', 'pro')).key
})
afterAll(async () => {
  await t?.close()
  await anvil?.close()
})

describe('balances equal what the node answers at the same block', () => {
  test('native and ERC-20, at several blocks and at the head, from block 0 and from a later start block', async () => {
    const client = clientsFor(anvil).public
    const { alice, bob, carol, dave } = script.accounts
    const { forwarder, vault, token } = script.contracts
    const blocks = [START_BLOCK_LATE, 15, 20, 25, script.head]
    let compared = 0
    for (const chain of ['ethereum', 'optimism']) {
      for (const account of [alice, bob, carol, dave, forwarder, vault]) {
        for (const block of blocks) {
          const { status, body } = await get(`/v1/wallets/${account}/balances?chain=${chain}&atBlock=${block}`)
          expect(status).toBe(200)
          expect(body.asOf).toEqual([{ chain, blockNumber: block, timestamp: expect.any(String) }])
          const native = await client.getBalance({ address: account, blockNumber: BigInt(block) })
          const tokenBalance = await client
            .readContract({
              address: token,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [account as Address],
              blockNumber: BigInt(block),
            })
            .catch(() => 0n) // not deployed yet at that block
          const expected = [
            ...(native === 0n
              ? []
              : [
                  {
                    type: 'native',
                    asset: 'ETH',
                    contractAddress: null,
                    balance: formatUnits(native, 18),
                    balanceRaw: native.toString(),
                  },
                ]),
            ...(tokenBalance === 0n
              ? []
              : [
                  {
                    type: 'erc20',
                    asset: 'TUSD',
                    contractAddress: lower(token),
                    balance: formatUnits(tokenBalance, 6),
                    balanceRaw: tokenBalance.toString(),
                  },
                ]),
          ]
          const got = body.balances
            .filter((b: { contractAddress: string | null }) => b.contractAddress === null || b.contractAddress === lower(token))
            .map(({ type, asset, contractAddress, balance, balanceRaw }: Record<string, unknown>) => ({
              type,
              asset,
              contractAddress,
              balanceRaw,
              balance,
            }))
          expect({ chain, account, block, balances: got }).toEqual({ chain, account, block, balances: expected })
          compared++
        }
      }
    }
    expect(compared).toBe(2 * 6 * blocks.length)
    // the balances above were read through checkpoints: each chain has them up to its head less the window
    const { rows } = await t.db.query<{ chain: string; heights: number; last: number }>(
      `SELECT chain, count(*)::int AS heights, max(block_number)::int AS last FROM balance_checkpoint_heights
        GROUP BY chain ORDER BY chain`,
    )
    expect(rows).toEqual([
      { chain: 'ethereum', heights: expect.any(Number), last: expect.any(Number) },
      { chain: 'optimism', heights: expect.any(Number), last: expect.any(Number) },
    ])
    for (const row of rows) {
      expect(row.heights).toBeGreaterThanOrEqual(3)
      expect(row.last).toBeGreaterThan(script.head - 2 - 3)
      expect(row.last).toBeLessThanOrEqual(script.head - 2)
    }
  })

  test('the head by default; zero balances left out; opening balances asked of the node once per address', async () => {
    const { dave } = script.accounts
    const before = nodeCalls
    const first = await get(`/v1/wallets/${dave.toUpperCase().replace('0X', '0x')}/balances?chain=ethereum`)
    const again = await get(`/v1/wallets/${dave}/balances?chain=ethereum`)
    expect(first.body).toEqual(again.body)
    expect(first.body.address).toBe(lower(dave))
    expect(first.body.asOf[0].blockNumber).toBe(script.head)
    expect(nodeCalls - before).toBeLessThanOrEqual(1)
    const fresh = await get('/v1/wallets/0x00000000000000000000000000000000000000ee/balances?chain=ethereum')
    expect(fresh.body.balances).toEqual([])
  })

  test('atDate: the balance at the end of that day; all chains: every configured chain, unavailable ones named', async () => {
    const { alice } = script.accounts
    const head = await get(`/v1/wallets/${alice}/balances?chain=ethereum`)
    const today = new Date(head.body.asOf[0].timestamp).toISOString().slice(0, 10)
    const atDate = await get(`/v1/wallets/${alice}/balances?chain=ethereum&atDate=${today}`)
    expect(atDate.body.balances).toEqual(head.body.balances)
    const all = await get(`/v1/wallets/${alice}/balances?includePrices=true&currency=EUR`)
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({
      chain: 'all',
      addressReadAs: ['evm', 'near', 'move'],
      chains: ['ethereum', 'optimism', 'base'],
      unavailableChains: [
        {
          chain: 'base',
          code: 'chain_unavailable',
          detail: expect.stringMatching(/^Base \(base\) is still backfilling: balances are served once/),
        },
      ],
      currency: 'EUR',
      // nothing is priced on the test chain's day: the totals are unknown, not 0
      priced: false,
      total_value_usd: null,
      total_value_eur: null,
    })
    expect(all.body.asOf.map((a: { chain: string }) => a.chain)).toEqual(['ethereum', 'optimism'])
    expect(all.body.balances[0]).toMatchObject({
      price_usd: null,
      value_usd: null,
      price_eur: null,
      value_eur: null,
      priced: false,
    })
  })
})

test('wrong input: a clear problem naming the parameter', async () => {
  const { alice } = script.accounts
  const cases: [string, number, string, string][] = [
    [`/v1/wallets/${alice}/balances?chain=ethereum&atBlock=${script.head + 1}`, 400, 'invalid_parameter', 'atBlock'],
    [`/v1/wallets/${alice}/balances?chain=optimism&atBlock=3`, 400, 'invalid_parameter', 'atBlock'],
    [`/v1/wallets/${alice}/balances?atBlock=3`, 400, 'invalid_parameter', 'atBlock'],
    [`/v1/wallets/${alice}/balances?chain=ethereum&atBlock=3&atDate=2024-01-01`, 400, 'invalid_parameter', 'atDate'],
    [`/v1/wallets/${alice}/balances?chain=ethereum&atDate=yesterday`, 400, 'invalid_parameter', 'atDate'],
    [`/v1/wallets/${alice}/balances?chain=ethereum&atDate=1999-01-01`, 400, 'invalid_parameter', 'atDate'],
    [`/v1/wallets/${alice}/balances?chain=nochain`, 400, 'unknown_chain', 'chain'],
    [`/v1/wallets/${alice}/balances?chain=ethereum&currency=XYZ`, 400, 'unsupported_currency', 'currency'],
    ['/v1/wallets/0x1234/balances?chain=ethereum', 400, 'invalid_address', 'address'],
    [`/v1/wallets/${alice}/balances?chain=base`, 503, 'chain_unavailable', 'chain'],
    [`/v1/wallets/${alice}/balances?chain=polygon`, 503, 'chain_unavailable', 'chain'],
  ]
  for (const [path, status, code, param] of cases) {
    const { status: got, body } = await get(path)
    expect({ path, status: got, code: body.code, param: body.param }).toEqual({ path, status, code, param })
  }
})

test('atDate before the indexed range: the error gives the first indexed block and its date, the earliest to ask for', async () => {
  const genesis = await clientsFor(anvil).public.getBlock({ blockNumber: 0n })
  const mined = new Date(Number(genesis.timestamp) * 1000).toISOString()
  const { status, body } = await get(`/v1/wallets/${script.accounts.alice}/balances?chain=ethereum&atDate=1999-01-01`)
  expect({ status, detail: body.detail }).toEqual({
    status: 400,
    detail: `atDate 1999-01-01 is before Ethereum's indexed range, which starts at block 0, mined ${mined}: ask for ${mined.slice(0, 10)} or later`,
  })
})
