import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type SolanaTransaction, transactionMovements, walletTransfers } from '../../../src/chains/explorers/solana.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerServer } from '../../helpers/explorer-server.ts'
import {
  EJHQX,
  FBQYJ,
  MINT_TO_EJHQX_ACCOUNT,
  MINT_TO_FBQYJ_ACCOUNT,
  names,
  RECEIVER,
  receiverHistory,
  signatureOf,
  thirdParty,
} from '../../helpers/solana-receiver.ts'
import { solanaRpc } from '../../helpers/solana-rpc.ts'
import { generatedTransfer, loadRecordedSolanaTransactions } from '../../helpers/solana-transactions.ts'

/**
 * Solana through the production path (connectExplorerSource → JSON-RPC over HTTP → on-demand cache
 * → API) against a local JSON-RPC server answering with staketaxcsv's recorded mainnet
 * `getTransaction` responses, checked against the amounts staketaxcsv's tests expect; paging,
 * failures and caching on generated transactions of the same shape.
 */

const recorded = loadRecordedSolanaTransactions()
const RAYDIUM_SWAP = '5dk9JQExmdT635xMYA1RvdMTt7thpFoUXAi1MgtMzpEnADiq7TMMjpTG3wN8RHJ3ZqfuvtjsbDV5SHAWqRwiu51F'
const RAYDIUM_WALLET = 'Bdky9P44ETXheH3KTTURodpeaV7QdPJyofS4brK1656o'
const SELL_SWAP = '2rY9ky2Ypps3KMxcgEoerPPKc1ZYEhxbV7x2bRZf8n31RuBDddvguvdmWMLyDJB8ayvbcUGH2LPpxDhT2rhubTEX'
const SELL_WALLET = 'mm5G1iYsa87dCR7zwBHmDC57k7mA6HHiRTE8FFNpkju'
const PAGED_WALLET = '4kLALtynrmd6pU2LkGXZCmUaMDfsnVixs7SkLjPKNJQG'
const COUNTERPARTY = '9QC3q9XT3Pq81DuM2Lt7yqkCY8uZZEtiNziJgrYp6SLj'
const GENERATED = 1_500

const tx = (signature: string) => recorded.get(signature) ?? expect.fail(`no recorded ${signature}`)

/** A decimal string in base units. */
const units = (value: string, decimals: number) => {
  const [whole = '0', fraction = ''] = value.split('.')
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

/** Net change per asset ('' = SOL) of `address` over its records. */
function netOf(records: ReturnType<typeof walletTransfers>, address: string): Record<string, bigint> {
  const net: Record<string, bigint> = {}
  for (const r of records) {
    const key = r.contractAddress ?? ''
    const sign = r.to === address ? 1n : -1n
    net[key] = (net[key] ?? 0n) + sign * r.value
  }
  return net
}

describe('Solana records from recorded mainnet transactions (staketaxcsv)', () => {
  test('a Raydium buy: 0.971735668 SOL out in all (fee included), 0.05388719 of 7vfCX… in', () => {
    const records = walletTransfers(tx(RAYDIUM_SWAP), RAYDIUM_WALLET)
    expect(netOf(records, RAYDIUM_WALLET)).toEqual({
      '': -971_735_668n,
      '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs': 5_388_719n,
    })
    // SOL wrapped into a temporary account (34Ghz…), a new token account funded (Ao2NS…), the
    // temporary account closed back to the wallet (its rent), the token bought
    const WRAP = '34GhzbQANCgBHt2zKovVGYuoaCHWgmbCQ5i76YFQ1Vyc'
    expect(records.map((r) => [r.type, r.from, r.to, r.value])).toEqual([
      ['fee', RAYDIUM_WALLET, null, 20_000n],
      ['native', RAYDIUM_WALLET, WRAP, 971_715_668n],
      ['native', RAYDIUM_WALLET, 'Ao2NSUtJet9C1z9LJy2gMJMVEb7xJepaQFT8ig8z9CNw', 2_039_280n],
      ['native', WRAP, RAYDIUM_WALLET, 2_039_280n],
      ['spl', '5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1', RAYDIUM_WALLET, 5_388_719n],
    ])
  })

  test('a sell: 7287032.271779 of JB5Txx… out, 0.045110273 SOL in net of the fee', () => {
    const records = walletTransfers(tx(SELL_SWAP), SELL_WALLET)
    expect(netOf(records, SELL_WALLET)).toEqual({
      '': 45_110_273n,
      JB5TxxRchPN1kBt6oWNURAC5DAnz88SeX2BeQEamMQva: -7_287_032_271_779n,
    })
  })

  test('every account’s records add up to its SOL and token balance changes, in all 19 transactions', () => {
    for (const t of recorded.values()) {
      const meta = t.meta ?? expect.fail('no meta')
      const keys = t.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey))
      const movements = transactionMovements(t)
      keys.forEach((key, i) => {
        const sum = movements
          .filter((m) => m.contractAddress === null)
          .reduce((s, m) => s + (m.to === key ? m.value : 0n) - (m.from === key ? m.value : 0n), 0n)
        expect([t.transaction.signatures[0], key, sum]).toEqual([
          t.transaction.signatures[0],
          key,
          BigInt(meta.postBalances[i] ?? 0) - BigInt(meta.preBalances[i] ?? 0),
        ])
      })
    }
  })

  test('records are the same whoever asks: seq and values do not depend on the wallet', () => {
    const swap = tx(RAYDIUM_SWAP)
    const fromPool = walletTransfers(swap, '5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1').find((r) => r.to === RAYDIUM_WALLET)
    const fromWallet = walletTransfers(swap, RAYDIUM_WALLET).find(
      (r) => r.from === '5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1',
    )
    expect(fromPool).toEqual(fromWallet)
  })
})

describe('Solana through the API on a local JSON-RPC server', () => {
  let server: ExplorerServer
  let rpc: ReturnType<typeof solanaRpc>
  let app: ExplorerTestApp
  /** Time passes: every wallet read is older than the freshness window, so the next request asks the explorer again. */
  /** Time passes: every wallet read is older than the freshness window. */
  const ageSyncs = () => app.ageSyncs()

  const get = (path: string) => app.get(path)
  const upstreamCalls = (method?: string) => server.calls.filter((c) => method === undefined || c.rpcMethod === method).length

  beforeAll(async () => {
    const generated = Array.from({ length: GENERATED }, (_, i) =>
      generatedTransfer(i, PAGED_WALLET, COUNTERPARTY, BigInt(1000 + i)),
    )
    rpc = solanaRpc({
      transactions: new Map([
        ...recorded,
        ...[...generated, ...receiverHistory].map((g) => [g.transaction.signatures[0] as string, g] as const),
      ]),
      lamports: new Map([[RAYDIUM_WALLET, 1_234_567_890n]]),
    })
    app = await startExplorerTestApp({
      upstreams: { solana: { answer: (call) => rpc.answer(call) } },
      freshForMs: 60_000,
      http: { retryBaseMs: 5, maxAttempts: 3 },
      otherChains: { ethereum: { urls: ['http://127.0.0.1:1'], startBlock: 0 } },
    })
    server = app.servers.solana as ExplorerServer
  })

  afterAll(() => app?.close())

  test('/transfers serves the recorded swap as the expected records, in SOL and token decimals', async () => {
    const { status, body } = await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers?chain=solana`)
    expect(status).toBe(200)
    expect(
      body.transfers.map((r: Record<string, unknown>) => [
        r.txHash,
        r.type,
        r.direction,
        r.value,
        r.tokenDecimals,
        r.asset,
        r.timestamp,
      ]),
    ).toEqual([
      [RAYDIUM_SWAP, 'spl', 'in', '0.05388719', 8, null, '2024-04-03T21:54:39.000Z'],
      [RAYDIUM_SWAP, 'native', 'in', '0.002039280', 9, 'SOL', '2024-04-03T21:54:39.000Z'],
      [RAYDIUM_SWAP, 'native', 'out', '0.002039280', 9, 'SOL', '2024-04-03T21:54:39.000Z'],
      [RAYDIUM_SWAP, 'native', 'out', '0.971715668', 9, 'SOL', '2024-04-03T21:54:39.000Z'],
      [RAYDIUM_SWAP, 'fee', 'out', '0.000020000', 9, 'SOL', '2024-04-03T21:54:39.000Z'],
    ])
    expect(body.transfers[0].blockNumber).toBe(258_196_593)
  })

  test('SPL sent by others to the wallet’s token accounts, open or closed, is in its history and adds up to its balances', async () => {
    // none of these transactions names the wallet: only its token accounts' signatures list them
    const credits = [
      thirdParty.ejhqx,
      thirdParty.fbqyj,
      thirdParty.toClosed,
      tx(MINT_TO_EJHQX_ACCOUNT),
      tx(MINT_TO_FBQYJ_ACCOUNT),
    ]
    expect(credits.map((t) => names(t, RECEIVER))).toEqual([false, false, false, false, false])
    server.resetCalls()
    const { status, body } = await get(`/v1/wallets/${RECEIVER}/transfers?chain=solana&limit=1000`)
    const calls = { tokenAccounts: upstreamCalls('getTokenAccountsByOwner'), lists: upstreamCalls('getSignaturesForAddress') }
    const balances = await get(`/v1/wallets/${RECEIVER}/balances?chain=solana`)
    const spl = body.transfers.filter((r: { type: string }) => r.type === 'spl')
    const net: Record<string, string> = {}
    for (const r of spl) {
      const value = units(r.value, r.tokenDecimals) * (r.direction === 'in' ? 1n : -1n)
      net[r.contractAddress] = String(BigInt(net[r.contractAddress] ?? '0') + value)
    }
    const held = Object.fromEntries(
      balances.body.balances
        .filter((b: { type: string }) => b.type === 'spl')
        .map((b: { contractAddress: string; balance: string; tokenDecimals: number }) => [
          b.contractAddress,
          String(units(b.balance, b.tokenDecimals)),
        ]),
    )
    const recordedAfter = (t: SolanaTransaction, mint: string) =>
      t.meta?.postTokenBalances?.find((b) => b.mint === mint && b.owner === RECEIVER)?.uiTokenAmount.amount
    expect({
      status,
      credited: new Set(spl.map((r: { txHash: string }) => r.txHash)),
      net,
      held,
      calls,
    }).toEqual({
      status: 200,
      credited: new Set(credits.map(signatureOf)),
      net: held,
      held: {
        [EJHQX]: recordedAfter(tx(MINT_TO_EJHQX_ACCOUNT), EJHQX),
        [FBQYJ]: recordedAfter(tx(MINT_TO_FBQYJ_ACCOUNT), FBQYJ),
      },
      // the wallet and its two open accounts on the first page, the closed account (found in the
      // transaction that closed it) on the second
      calls: { tokenAccounts: 2, lists: 4 },
    })
  })

  test('a second request is served from the store: no upstream call', async () => {
    server.resetCalls()
    const again = await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers?chain=solana`)
    expect({ status: again.status, n: again.body.transfers.length, calls: upstreamCalls() }).toEqual({
      status: 200,
      n: 5,
      calls: 0,
    })
  })

  test('a 1,500-transaction wallet is read over 2 upstream pages and served 1000 a page by cursor', async () => {
    server.resetCalls()
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const { status, body } = await get(
        `/v1/wallets/${PAGED_WALLET}/transfers?chain=solana&limit=1000&includeFees=false${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      )
      expect(status).toBe(200)
      seen.push(...body.transfers.map((r: { txHash: string }) => r.txHash))
      cursor = body.cursor
      pages++
    } while (cursor !== null)
    expect({ pages, records: seen.length, distinct: new Set(seen).size }).toEqual({
      pages: 2,
      records: GENERATED,
      distinct: GENERATED,
    })
    expect(seen[0]).toBe(generatedTransfer(GENERATED - 1, PAGED_WALLET, COUNTERPARTY, 1n).transaction.signatures[0])
    // the minimum paging allows: 2 signature pages (1000, 500) and one getTransaction each
    expect({ pages: upstreamCalls('getSignaturesForAddress'), txs: upstreamCalls('getTransaction') }).toEqual({
      pages: 2,
      txs: GENERATED,
    })
  })

  test('later, only what is newer is read: one signature page and the new transactions', async () => {
    await ageSyncs()
    rpc.add(generatedTransfer(GENERATED, PAGED_WALLET, COUNTERPARTY, 777_000n))
    server.resetCalls()
    const { body } = await get(`/v1/wallets/${PAGED_WALLET}/transfers?chain=solana&limit=2`)
    expect(body.transfers.map((r: { type: string; value: string }) => [r.type, r.value])).toEqual([
      ['native', '0.000777000'],
      ['fee', '0.000005000'],
    ])
    expect({ pages: upstreamCalls('getSignaturesForAddress'), txs: upstreamCalls('getTransaction') }).toEqual({
      pages: 1,
      txs: 1,
    })
  })

  test('a 429 with Retry-After is waited out and retried', async () => {
    await ageSyncs()
    server.resetCalls()
    server.failNext({ status: 429, headers: { 'retry-after': '1' }, body: { error: 'rate limited' } })
    const started = Date.now()
    const { status } = await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers?chain=solana`)
    expect({ status, waited: Date.now() - started >= 900 }).toEqual({ status: 200, waited: true })
  })

  test('an explorer that keeps failing is 502 upstream_error for the chain, and listed in all-chains mode', async () => {
    await ageSyncs()
    const failure = { status: 503, body: { error: 'down' } }
    server.failNext(failure, failure, failure)
    const named = await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers?chain=solana`)
    expect({ status: named.status, code: named.body.code }).toEqual({ status: 502, code: 'upstream_error' })
    server.failNext(failure, failure, failure)
    const all = await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers`)
    expect({ status: all.status, unavailable: all.body.unavailableChains, chains: all.body.chains }).toEqual({
      status: 200,
      unavailable: [{ chain: 'solana', code: 'upstream_error', detail: expect.stringContaining('503') }],
      chains: ['solana'],
    })
    const status = await get('/v1/status/chains')
    const solana = status.body.chains.find((c: { chain: string }) => c.chain === 'solana')
    expect({ status: solana.status, lastError: typeof solana.lastError }).toEqual({ status: 'stalled', lastError: 'string' })
  })

  test('malformed answers are retried, then upstream_error', async () => {
    await ageSyncs()
    const malformed = { raw: '{"jsonrpc":', body: null }
    server.failNext(malformed, malformed, malformed)
    const { status, body } = await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers?chain=solana`)
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'upstream_error' })
  })

  test('/v1/status/chains reports the explorer head once it answers again', async () => {
    await ageSyncs()
    await get(`/v1/wallets/${RAYDIUM_WALLET}/transfers?chain=solana`)
    const { body } = await get('/v1/status/chains')
    const solana = body.chains.find((c: { chain: string }) => c.chain === 'solana')
    expect({ status: solana.status, latestBlock: solana.latestBlock, lastError: solana.lastError }).toEqual({
      status: 'live',
      latestBlock: 400_000_000,
      lastError: null,
    })
  })

  test('/balances answers SOL from getBalance and SPL tokens from getTokenAccountsByOwner (recorded)', async () => {
    const { status, body } = await get(`/v1/wallets/${RAYDIUM_WALLET}/balances?chain=solana&includePrices=true`)
    expect(status).toBe(200)
    expect(body.balances[0]).toMatchObject({
      chain: 'solana',
      type: 'native',
      asset: 'SOL',
      balance: '1.234567890',
      tokenDecimals: 9,
    })
    expect(body.balances.slice(1).every((b: { type: string }) => b.type === 'spl')).toBe(true)
    expect(body.asOf).toEqual([{ chain: 'solana', blockNumber: 400_000_000, timestamp: expect.any(String) }])
  })

  test('balances at a date are refused for an explorer chain, naming the parameter', async () => {
    const { status, body } = await get(`/v1/wallets/${RAYDIUM_WALLET}/balances?chain=solana&atDate=2024-01-01`)
    expect({ status, code: body.code, param: body.param }).toEqual({ status: 400, code: 'invalid_parameter', param: 'atDate' })
  })
})
