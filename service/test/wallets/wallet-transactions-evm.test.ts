import { type Abi, type Address, type Hash, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { clientsFor } from '../helpers/scripted-chain.ts'
import { compileTransactionContracts } from '../helpers/transaction-contracts.ts'
import { checkNet, type Entry, sumNets, walkPages } from '../helpers/transactions.ts'

/**
 * GET /v1/wallets/{address}/transactions through HTTP on real anvil nodes: a wallet of its own (no
 * genesis balance, so its records are its whole history) plays one transaction of every EVM
 * category against small contracts deployed for it (a pool, an NFT market, an airdropper), and
 * an OP-stack node (`--network optimism`) gives it a deposit. Each transaction must come back with
 * its category and rule, its net adding up with its movements, and the whole history adding up to
 * the reconciliation endpoint's records.
 */

const logger = createLogger('silent')
const WALLET = '0x00000000000000000000000000000000000c0ffe' as Address
const hex = (n: bigint) => `0x${n.toString(16)}`

let plain: Anvil
let op: Anvil
let t: ServedTestApp
let key: string
/** The rule each scripted transaction of the wallet must be named by, by hash. */
const expected = new Map<Hash, string>()
/** Every scripted transaction of the wallet's (those that moved nothing of it are not listed). */
let failedCall: Hash

async function get(path: string, app: ServedTestApp = t) {
  const response = await fetch(`${app.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/** Plays the wallet's history on the plain node; fills `expected`. */
async function playHistory(node: Anvil) {
  const a = await compileTransactionContracts()
  const { public: client, wallet } = clientsFor(node)
  const [bob, carol, dave] = (await wallet.getAddresses()) as [Address, Address, Address]
  await node.rpc('anvil_impersonateAccount', [WALLET])
  const mined = async (hash: Hash, rule?: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (rule !== undefined) expected.set(hash, rule)
    return receipt
  }
  const deploy = async (name: keyof typeof a, args: unknown[] = []) => {
    const { abi, bytecode } = a[name]
    const receipt = await mined(await wallet.deployContract({ abi, bytecode, args, account: bob, chain: null }))
    return receipt.contractAddress as Address
  }
  const call = async (
    from: Address,
    address: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
    rule?: string,
    extra: { value?: bigint; gas?: bigint } = {},
  ) => mined(await wallet.writeContract({ address, abi, functionName, args, account: from, chain: null, ...extra }), rule)
  const send = async (from: Address, to: Address, value: bigint, rule?: string) =>
    mined(await wallet.sendTransaction({ account: from, to, value, chain: null }), rule)

  const tokenA = await deploy('PoolToken', ['Token A', 'TKA'])
  const tokenB = await deploy('PoolToken', ['Token B', 'TKB'])
  const nft = await deploy('MarketNft')
  const pool = await deploy('TinyPool', [tokenA, tokenB])
  const market = await deploy('NftMarket', [nft])
  const airdropper = await deploy('Airdropper')
  const T = a.PoolToken.abi
  const N = a.MarketNft.abi
  const P = a.TinyPool.abi
  const M = a.NftMarket.abi
  // the pool, the market and the airdropper hold what they give out
  await call(bob, tokenA, T, 'mint', [pool, parseEther('1000000')])
  await call(bob, tokenB, T, 'mint', [pool, parseEther('1000000')])
  await call(bob, tokenA, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob, tokenA, T, 'mint', [dave, parseEther('100')])
  await call(bob, tokenB, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob, nft, N, 'mint', [market, 1n])
  await call(bob, nft, N, 'mint', [market, 2n])
  await send(bob, market, parseEther('5'))
  await send(bob, pool, parseEther('5'))

  await send(bob, WALLET, parseEther('100'), 'receive.only-in')
  await call(WALLET, pool, P, 'swapEthForA', [], 'swap.fungible-for-fungible', { value: parseEther('1') })
  await call(WALLET, tokenA, T, 'approve', [pool, parseEther('1000000')], 'fee-only.nothing-moved')
  await call(WALLET, pool, P, 'swapAForB', [parseEther('500')], 'swap.fungible-for-fungible')
  await call(WALLET, pool, P, 'swapAForEth', [parseEther('100')], 'swap.fungible-for-fungible')
  await call(WALLET, market, M, 'buyWithEth', [1n], 'nft-purchase.fungible-for-nft', { value: parseEther('0.5') })
  await call(WALLET, tokenB, T, 'approve', [market, parseEther('1000000')], 'fee-only.nothing-moved')
  await call(WALLET, market, M, 'buyWithToken', [tokenB, parseEther('100'), 2n], 'nft-purchase.fungible-for-nft')
  await call(WALLET, nft, N, 'setApprovalForAll', [market, true], 'fee-only.nothing-moved')
  await call(WALLET, market, M, 'sell', [2n, parseEther('0.1')], 'nft-sale.nft-for-fungible')
  await call(WALLET, tokenA, T, 'mint', [WALLET, parseEther('1000')], 'mint.from-zero')
  await call(WALLET, nft, N, 'mint', [WALLET, 3n], 'mint.from-zero')
  await call(WALLET, tokenB, T, 'burn', [parseEther('10')], 'burn.to-zero')
  await call(WALLET, nft, N, 'burn', [3n], 'burn.to-zero')
  const recipients = [WALLET, ...Array.from({ length: 49 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`)]
  await call(dave, airdropper, a.Airdropper.abi, 'drop', [tokenA, recipients, parseEther('7')], 'airdrop.one-to-many')
  // five records of the wallet in one transaction (more than a small page's limit), from one sender to one recipient
  const fiveTimes = Array.from({ length: 5 }, () => WALLET)
  await call(dave, airdropper, a.Airdropper.abi, 'drop', [tokenB, fiveTimes, parseEther('1')], 'token-receive.only-in')
  const failed = await call(WALLET, pool, P, 'swapAForB', [parseEther('100000000')], 'fee-only.failed', { gas: 200_000n })
  if (failed.status !== 'reverted') throw new Error('the failed call did not fail')
  failedCall = failed.transactionHash
  await send(WALLET, WALLET, parseEther('1'), 'self.to-itself')
  await send(WALLET, carol, parseEther('2'), 'send.only-out')
  await call(WALLET, tokenA, T, 'transfer', [carol, parseEther('5')], 'token-send.only-out')
  await call(dave, tokenA, T, 'transfer', [WALLET, parseEther('3')], 'token-receive.only-in')
  await call(WALLET, nft, N, 'transferFrom', [WALLET, carol, 1n], 'nft-send.only-out')
  await call(carol, nft, N, 'transferFrom', [carol, WALLET, 1n], 'nft-receive.only-in')
  await call(WALLET, pool, P, 'refundHalf', [], 'contract-interaction.initiated', { value: parseEther('2') })
  // a transfer of the wallet's tokens it did not make, to no one of its: not the wallet's transaction
  await call(dave, tokenA, T, 'transfer', [carol, 1n])
}

/** An OP-stack deposit (type 0x7e) from the wallet minting `mint` to it; its hash once mined. */
async function deposit(node: Anvil, mint: bigint): Promise<Hash> {
  const hash = await node.rpc<Hash>('eth_sendTransaction', [
    {
      from: WALLET,
      to: WALLET,
      value: '0x0',
      mint: hex(mint),
      type: '0x7e',
      sourceHash: `0x${'1'.padStart(64, '0')}`,
      isSystemTx: false,
      gas: '0x30000',
    },
  ])
  await clientsFor(node).public.waitForTransactionReceipt({ hash })
  return hash
}

let depositTx: Hash

beforeAll(async () => {
  ;[plain, op] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 10, args: ['--network', 'optimism'] })])
  await playHistory(plain)
  depositTx = await deposit(op, parseEther('3'))
  const nodes: Record<string, Anvil> = { ethereum: plain, optimism: op }
  t = await createServedTestApp(
    { chains: { ethereum: { urls: [plain.url], startBlock: 0 }, optimism: { urls: [op.url], startBlock: 0 } } },
    { findSource: async (chain) => evmSourceFor(chain, nodes[chain]?.url ?? 'http://127.0.0.1:1', logger) },
  )
  for (const chain of ['ethereum', 'optimism']) await indexToHead(t.db, chain, (nodes[chain] as Anvil).url, { logger })
  key = (await t.createKey('transactions@example.com', 'pro')).key
}, 180_000)

afterAll(async () => {
  await t?.close()
  await Promise.all([plain?.close(), op?.close()])
})

describe('GET /v1/wallets/{address}/transactions on EVM', () => {
  test('every scripted transaction of the wallet comes back once, named by its rule, newest first', async () => {
    const { status, body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    expect(status).toBe(200)
    expect(body).toMatchObject({ address: WALLET, chain: 'ethereum', cursor: null, hasMore: false })
    const entries = body.transactions as Entry[]
    expect(new Map(entries.map((e) => [e.txHash, e.rule.id]))).toEqual(expected)
    expect(entries.map((e) => e.category)).toEqual(entries.map((e) => e.rule.id.split('.')[0]))
    const blocks = entries.map((e) => e.blockNumber)
    expect(blocks).toEqual([...blocks].sort((x, y) => y - x))
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length)
  })

  test("each entry's net adds up, per asset, with its movements and fee", async () => {
    const { body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    for (const entry of body.transactions as Entry[]) checkNet(entry, WALLET)
  })

  test('initiatedByWallet, status and fee: the wallet paid for its own, not for the airdrop or what others sent it', async () => {
    const { body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    for (const entry of body.transactions as Entry[]) {
      const others = ['receive', 'airdrop', 'token-receive', 'nft-receive'].includes(entry.category)
      expect({ tx: entry.txHash, initiated: entry.initiatedByWallet, paid: entry.fee !== null }).toEqual({
        tx: entry.txHash,
        initiated: !others,
        paid: !others,
      })
      expect(entry.status).toBe(entry.txHash === failedCall ? 'failed' : 'success')
    }
  })

  test('the airdrop says how many addresses its sender gave the token to', async () => {
    const { body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    const airdrop = (body.transactions as Entry[]).find((e) => e.category === 'airdrop')
    expect(airdrop?.rule.explanation).toMatch(/sent it to 50 addresses/)
  })

  test('all entries together add up, per asset, to the records the reconciliation endpoint adds up', async () => {
    const { body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    const totals = sumNets(body.transactions as Entry[])
    const reconciliation = await get(`/v1/wallets/${WALLET}/reconciliation?chain=ethereum`)
    expect(reconciliation.status).toBe(200)
    const fungible = reconciliation.body.assets as { contractAddress: string | null; records: string; tokenDecimals: number }[]
    expect(fungible.length).toBe(3)
    for (const asset of fungible) {
      expect({ asset: asset.contractAddress, net: totals.get(asset.contractAddress ?? '') }).toEqual({
        asset: asset.contractAddress,
        net: BigInt(asset.records.replace('.', '')),
      })
    }
  })

  test('an OP-stack deposit is a deposit, on its chain and in the all-chains listing', async () => {
    const one = await get(`/v1/wallets/${WALLET}/transactions?chain=optimism`)
    expect(one.body.transactions.map((e: Entry) => [e.txHash, e.rule.id, e.initiatedByWallet, e.fee])).toEqual([
      [depositTx, 'deposit.record', false, null],
    ])
    expect(one.body.transactions[0].net).toEqual([
      {
        asset: 'ETH',
        contractAddress: null,
        tokenId: null,
        tokenDecimals: 18,
        value: '3.000000000000000000',
        valueRaw: '3000000000000000000',
      },
    ])
    const all = await get(`/v1/wallets/${WALLET}/transactions?limit=1000`)
    expect(all.body).toMatchObject({ chain: 'all', chains: ['ethereum', 'optimism'], unavailableChains: [] })
    expect(all.body.transactions.length).toBe(expected.size + 1)
    expect(all.body.transactions.some((e: Entry) => e.chain === 'optimism' && e.category === 'deposit')).toBe(true)
  })

  test('pages of every size hold the same transactions, never split, and the cursor reads on a restarted service', async () => {
    const { body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    expect(body.transactions.some((e: Entry) => e.movements.length === 5)).toBe(true)
    for (const limit of [1, 2, 7]) {
      const pages = await walkPages((cursor) =>
        get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`),
      )
      expect(pages.every((page) => page.length <= limit)).toBe(true)
      expect(pages.flat()).toEqual(body.transactions)
    }
    const first = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=3`)
    // a service started again on the same database and secret (WDS_JWT_SECRET, or the data dir's)
    const restarted = await createServedTestApp(
      { chains: { ethereum: { urls: [plain.url], startBlock: 0 } } },
      { databaseUrl: t.databaseUrl, jwtSecret: t.jwtSecret },
    )
    try {
      const next = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=3&cursor=${first.body.cursor}`, restarted)
      expect(next.status).toBe(200)
      expect(next.body.transactions).toEqual(body.transactions.slice(3, 6))
    } finally {
      await restarted.app.close()
      await restarted.db.end()
    }
  }, 60_000)

  test('direction=in lists the transactions in which the wallet received something; out those in which it sent or paid', async () => {
    const { body } = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1000`)
    const all = body.transactions as Entry[]
    const received = all.filter((e) => e.movements.some((m) => m.direction === 'in' || m.from === m.to))
    const sent = all.filter((e) => e.fee !== null || e.movements.some((m) => m.direction === 'out'))
    const inPages = await walkPages((cursor) =>
      get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&direction=in&limit=4${cursor === null ? '' : `&cursor=${cursor}`}`),
    )
    expect(inPages.flat()).toEqual(received)
    const out = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&direction=out&limit=1000`)
    expect(out.body.transactions).toEqual(sent)
  })

  test('with includePrices each net line and movement has fiat fields: a number or null, never 0', async () => {
    const { status, body } = await get(
      `/v1/wallets/${WALLET}/transactions?chain=ethereum&includePrices=true&currency=EUR&limit=5`,
    )
    expect(status).toBe(200)
    expect(body.currency).toBe('EUR')
    for (const entry of body.transactions as Entry[]) {
      for (const line of [...entry.net, ...entry.movements] as Record<string, unknown>[]) {
        for (const field of ['price_usd', 'value_usd', 'price_eur', 'value_eur']) {
          expect(line).toHaveProperty(field)
          expect(line[field]).not.toBe(0)
        }
      }
    }
  })

  test('bad input is a 400 problem naming the parameter', async () => {
    const cases: [string, number, string, string][] = [
      ['limit=0', 400, 'invalid_parameter', 'limit'],
      ['limit=1001', 400, 'invalid_parameter', 'limit'],
      ['asset=native', 400, 'invalid_parameter', 'asset'],
      ['direction=sideways', 400, 'invalid_parameter', 'direction'],
      ['cursor=garbage', 400, 'invalid_cursor', 'cursor'],
      ['chain=narnia', 400, 'unknown_chain', 'chain'],
      ['fromBlock=9&toBlock=3', 400, 'invalid_parameter', 'fromBlock'],
    ]
    for (const [query, status, code, param] of cases) {
      const response = await fetch(
        `${t.baseUrl}/v1/wallets/${WALLET}/transactions?chain=ethereum&${query}`.replace('chain=ethereum&chain=', 'chain='),
        {
          headers: { 'x-api-key': key },
        },
      )
      const problem = (await response.json()) as { code: string; param?: string; detail: string }
      expect({
        query,
        status: response.status,
        code: problem.code,
        mentions: problem.detail.includes(param) || problem.param === param,
      }).toEqual({
        query,
        status,
        code,
        mentions: true,
      })
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/)
    }
    // a /transfers cursor is another query's
    const transfers = await get(`/v1/wallets/${WALLET}/transfers?chain=ethereum&limit=1`)
    const foreign = await get(`/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=1&cursor=${transfers.body.cursor}`)
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: 400, code: 'invalid_cursor' })
    const invalid = await get('/v1/wallets/0x1234/transactions?chain=ethereum')
    expect({ status: invalid.status, code: invalid.body.code }).toEqual({ status: 400, code: 'invalid_address' })
  })

  test('the OpenAPI document publishes category as an enum of the vocabulary', async () => {
    const response = await fetch(`${t.baseUrl}/openapi.json`)
    const document = (await response.json()) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> }
    }
    expect(document.components.schemas.Transaction?.properties.category?.enum).toEqual(
      expect.arrayContaining(['swap', 'nft-purchase', 'airdrop', 'fee-only', 'contract-interaction', 'deposit', 'self']),
    )
  })
})
