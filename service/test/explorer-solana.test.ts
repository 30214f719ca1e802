import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  createSolanaSource,
  type SolanaTransaction,
  transactionMovements,
  walletTransfers,
} from '../src/chains/explorers/solana.ts'
import {
  backfillDone,
  type FetchSignatures,
  type Progress,
  readNewer,
  readOlderPage,
  type SignatureInfo,
  withAddresses,
} from '../src/chains/explorers/solana-signatures.ts'
import { createJsonRpcClient } from '../src/lib/json-rpc.ts'
import { type ExplorerTestApp, startExplorerTestApp } from './helpers/explorer-app.ts'
import type { ExplorerCall, ExplorerServer } from './helpers/explorer-server.ts'
import {
  generatedAddress,
  generatedTokenTransfer,
  generatedTransfer,
  loadRecordedSolanaTransactions,
  solanaRpc,
} from './helpers/solana-rpc.ts'

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

/*
 * CbYf9…: a wallet credited only through its token accounts. Recorded: 3HdFhHNy… mints 151571 of
 * EJhqX… to its account E8Bw6… and 4NAC7cK6… 1297259 of FbQYj… to FX5PBD…, neither naming the
 * wallet. Generated in the recorded shape before them, so that the accounts' balances are what those
 * transactions found: a third party sends EJhqX… to E8Bw6… and FbQYj… to FX5PBD…, and 1000 EJhqX… to
 * another account of the wallet, which the wallet then empties into E8Bw6… and closes (the one
 * transaction naming the wallet).
 */
const RECEIVER = 'CbYf9QNrkVgNRCMTDiVdvzMqSzXh8AAgnrKAoTfEACdh'
const EJHQX = 'EJhqXKJEncSx1HJjS5ZpKdiKGGgLiRgNPvo8JZvw5Guj'
const FBQYJ = 'FbQYjLEq1vNCszmxmxZDoFiy9fgyfdPxzt9Fu5zk5jJ4'
const EJHQX_ACCOUNT = 'E8Bw6Zt6NxjaHmHyhkXsq4UiLbHzicLKmhUAfCz1bgdU'
const FBQYJ_ACCOUNT = 'FX5PBDb4nVTs4f9dSkUsj55rEYrCkBs9e7xZpDHqDeVM'
const MINT_TO_EJHQX_ACCOUNT = '3HdFhHNyf2uKrW6zb6FeYZpjcRyvprQuQH4oVkmc4uuCAhoEUAEkPHgUzRubf8npmHnziRs4HokFTgAkGPyzso6D'
const MINT_TO_FBQYJ_ACCOUNT = '4NAC7cK6cRPFZJaJVehTJ2Pstj63oWjcDnnFoPARtsXb4qZiHhQeQmG9wbZg2yTkNPm37h13hP9vdZQdJReHiLBF'
const CLOSED_ACCOUNT = generatedAddress('a second EJhqX account of CbYf9, closed')
const SENDER = generatedAddress('a third party')
const SENDER_EJHQX = generatedAddress('the third party’s EJhqX account')
const SENDER_FBQYJ = generatedAddress('the third party’s FbQYj account')
const sent = { ejhqx: 944_187_830_963n, fbqyj: 7_860_778_179_540n, toClosed: 1000n }
const thirdParty = {
  ejhqx: generatedTokenTransfer({
    slot: 254_900_000,
    payer: SENDER,
    source: { account: SENDER_EJHQX, owner: SENDER, before: 10n ** 15n },
    destination: { account: EJHQX_ACCOUNT, owner: RECEIVER, before: 0n },
    mint: EJHQX,
    decimals: 9,
    amount: sent.ejhqx,
  }),
  fbqyj: generatedTokenTransfer({
    slot: 254_900_100,
    payer: SENDER,
    source: { account: SENDER_FBQYJ, owner: SENDER, before: 10n ** 16n },
    destination: { account: FBQYJ_ACCOUNT, owner: RECEIVER, before: 0n },
    mint: FBQYJ,
    decimals: 9,
    amount: sent.fbqyj,
  }),
  toClosed: generatedTokenTransfer({
    slot: 254_950_000,
    payer: SENDER,
    source: { account: SENDER_EJHQX, owner: SENDER, before: 10n ** 15n - sent.ejhqx },
    destination: { account: CLOSED_ACCOUNT, owner: RECEIVER, before: 0n },
    mint: EJHQX,
    decimals: 9,
    amount: sent.toClosed,
  }),
}
const emptyAndClose = generatedTokenTransfer({
  slot: 255_000_000,
  payer: RECEIVER,
  source: { account: CLOSED_ACCOUNT, owner: RECEIVER, before: sent.toClosed },
  destination: { account: EJHQX_ACCOUNT, owner: RECEIVER, before: sent.ejhqx },
  mint: EJHQX,
  decimals: 9,
  amount: sent.toClosed,
  close: true,
})
const receiverHistory = [thirdParty.ejhqx, thirdParty.fbqyj, thirdParty.toClosed, emptyAndClose]
const signatureOf = (t: SolanaTransaction) => t.transaction.signatures[0] as string
const names = (t: SolanaTransaction, address: string) =>
  [
    ...t.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey)),
    ...(t.meta?.loadedAddresses?.writable ?? []),
    ...(t.meta?.loadedAddresses?.readonly ?? []),
  ].includes(address)

/** A decimal string in base units. */
const units = (value: string, decimals: number) => {
  const [whole = '0', fraction = ''] = value.split('.')
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

/** `getSignaturesForAddress` of a stand-in, called in process with its own `limit`. */
const signaturesFrom =
  (rpc: ReturnType<typeof solanaRpc>, limit: number): FetchSignatures =>
  async (address, cursor) => {
    const answer = rpc.answer({
      method: 'POST',
      path: '/',
      query: new URLSearchParams(),
      body: { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [address, { limit, ...cursor }] },
    })
    if (answer.status !== undefined) throw new Error(JSON.stringify(answer.body))
    return answer.body as SignatureInfo[]
  }

/** A JSON-RPC call to a stand-in, in process. */
const ask = (rpc: ReturnType<typeof solanaRpc>, method: string, params: unknown[]) =>
  rpc.answer({
    method: 'POST',
    path: '/',
    query: new URLSearchParams(),
    body: { jsonrpc: '2.0', id: 7, method, params },
  } as ExplorerCall)

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

describe('Solana: the signatures of a wallet and its token accounts, read as one list', () => {
  // Q sends SOL 7 times; others send SPL to its token account 6 times (twice in one slot, and in
  // slots of Q's own); Q then sends SPL from that account (a transaction in both lists)
  const Q = generatedAddress('a wallet paged with its token account')
  const Q_TOKENS = generatedAddress('its token account')
  const MINT = generatedAddress('a mint')
  const receipt = (slot: number, k: number) =>
    generatedTokenTransfer({
      slot,
      payer: SENDER,
      source: { account: SENDER_EJHQX, owner: SENDER, before: 10n ** 9n },
      destination: { account: Q_TOKENS, owner: Q, before: BigInt(k) * 100n },
      mint: MINT,
      decimals: 6,
      amount: 100n,
    })
  const history = () => [
    ...Array.from({ length: 7 }, (_, i) => generatedTransfer(i, Q, COUNTERPARTY, 1000n)),
    ...[1, 3, 3, 5, 8, 9].map((slot, k) => receipt(300_000_000 + slot, k)),
    generatedTokenTransfer({
      slot: 300_000_010,
      payer: Q,
      source: { account: Q_TOKENS, owner: Q, before: 600n },
      destination: { account: SENDER_EJHQX, owner: SENDER, before: 0n },
      mint: MINT,
      decimals: 6,
      amount: 50n,
    }),
  ]
  const stand = () => solanaRpc({ transactions: new Map(history().map((t) => [signatureOf(t), t])) })

  /** The backfill, page by page, with the position stored (as JSON) after each. */
  async function walk(fetch: FetchSignatures, start: Progress, stopAfter = Number.POSITIVE_INFINITY) {
    let progress = start
    const pages: SignatureInfo[][] = []
    while (!backfillDone(progress) && pages.length < stopAfter) {
      const page = await readOlderPage(fetch, progress, { limit: 3, concurrency: 2 })
      pages.push(page.signatures)
      progress = JSON.parse(JSON.stringify(page.progress))
    }
    return { pages, progress }
  }

  test('readOlderPage() gives every signature of both once, newest first across pages of about `limit`', async () => {
    const fetch = signaturesFrom(stand(), 3)
    const { pages } = await walk(fetch, withAddresses({}, [Q, Q_TOKENS]))
    const all = pages.flat()
    const slots = all.map((i) => i.slot)
    expect({
      signatures: new Set(all.map((i) => i.signature)),
      read: all.length,
      newestFirst: slots.every((slot, i) => i === 0 || slot <= (slots[i - 1] as number)),
      pages: pages.length > 3,
      pageSizes: pages.every((p) => p.length >= 1 && p.length <= 4),
    }).toEqual({
      signatures: new Set(history().map(signatureOf)),
      read: 14,
      newestFirst: true,
      pages: true,
      pageSizes: true,
    })
  })

  test('readOlderPage() goes on from a stored position exactly where it stopped', async () => {
    const fetch = signaturesFrom(stand(), 3)
    const straight = await walk(fetch, withAddresses({}, [Q, Q_TOKENS]))
    const first = await walk(fetch, withAddresses({}, [Q, Q_TOKENS]), 2)
    const rest = await walk(fetch, first.progress)
    expect([...first.pages, ...rest.pages].flat()).toEqual(straight.pages.flat())
  })

  test('readNewer() gives what arrived since, on either address, newest first', async () => {
    const rpc = stand()
    const fetch = signaturesFrom(rpc, 3)
    const { progress } = await walk(fetch, withAddresses({}, [Q, Q_TOKENS]))
    const arrived = [receipt(300_000_020, 6), generatedTransfer(30, Q, COUNTERPARTY, 1n), receipt(300_000_040, 7)]
    rpc.add(...arrived)
    const newer = await readNewer(fetch, progress, [Q, Q_TOKENS], { limit: 3, concurrency: 2 })
    const again = await readNewer(fetch, newer.progress, [Q, Q_TOKENS], { limit: 3, concurrency: 2 })
    expect({ newer: newer.signatures.map((i) => i.signature), again: again.signatures }).toEqual({
      newer: [...arrived].sort((a, b) => b.slot - a.slot).map(signatureOf),
      again: [],
    })
  })

  test('a position stored before token accounts were read goes on: its accounts read whole, the wallet for what is newer', async () => {
    const rpc = solanaRpc({ transactions: new Map([...recorded, ...receiverHistory.map((t) => [signatureOf(t), t] as const)]) })
    const lists: string[] = []
    const client = createJsonRpcClient({
      async send(message, read) {
        const { id, method, params } = message as { id: unknown; method: string; params: [string, { until?: string }] }
        if (method === 'getSignaturesForAddress') lists.push(`${params[0]}${params[1].until === undefined ? '' : ' newer'}`)
        const reply = ask(rpc, method, params)
        return read(reply.status === undefined ? { jsonrpc: '2.0', id, result: reply.body } : reply.body, reply.status ?? 200)
      },
    })
    const walletOnly = { newest: signatureOf(emptyAndClose), oldest: signatureOf(emptyAndClose), done: true }
    const pages = []
    for await (const page of createSolanaSource({ rpc: client }).readHistory(RECEIVER, walletOnly)) pages.push(page)
    const net: Record<string, bigint> = {}
    for (const t of pages.flatMap((p) => p.blocks.flatMap((b) => b.transfers)))
      if (t.type === 'spl')
        net[t.contractAddress as string] = (net[t.contractAddress as string] ?? 0n) + (t.to === RECEIVER ? t.value : -t.value)
    expect({ lists, net, complete: pages.map((p) => p.complete) }).toEqual({
      lists: [EJHQX_ACCOUNT, FBQYJ_ACCOUNT, CLOSED_ACCOUNT, `${RECEIVER} newer`],
      net: { [EJHQX]: sent.ejhqx + sent.toClosed + 151_571n, [FBQYJ]: sent.fbqyj + 1_297_259n },
      complete: [false, false, true],
    })
  })

  test('the stand-in lists an address’s transactions only (not its token accounts’), with Agave’s checks', () => {
    const rpc = solanaRpc({ transactions: new Map([...recorded, ...receiverHistory.map((t) => [signatureOf(t), t] as const)]) })
    const list = (address: string, options: Record<string, unknown> = {}) =>
      (ask(rpc, 'getSignaturesForAddress', [address, options]).body as { signature: string }[]).map((i) => i.signature)
    const error = (params: unknown[]) => (ask(rpc, 'getSignaturesForAddress', params).body as { error: unknown }).error
    expect({
      receiver: list(RECEIVER),
      account: list(EJHQX_ACCOUNT),
      before: list(EJHQX_ACCOUNT, { before: MINT_TO_EJHQX_ACCOUNT }),
      until: list(EJHQX_ACCOUNT, { until: signatureOf(emptyAndClose) }),
      limit: list(EJHQX_ACCOUNT, { limit: 1 }),
      unknownBefore: list(EJHQX_ACCOUNT, { before: signatureOf(generatedTransfer(99, Q, COUNTERPARTY, 1n)) }),
      tooMany: error([EJHQX_ACCOUNT, { limit: 1001 }]),
      none: error([EJHQX_ACCOUNT, { limit: 0 }]),
      short: error(['abc']),
      notBase58: error(['0OIl']),
      processed: error([EJHQX_ACCOUNT, { commitment: 'processed' }]),
    }).toEqual({
      receiver: [signatureOf(emptyAndClose)],
      account: [MINT_TO_EJHQX_ACCOUNT, signatureOf(emptyAndClose), signatureOf(thirdParty.ejhqx)],
      before: [signatureOf(emptyAndClose), signatureOf(thirdParty.ejhqx)],
      until: [MINT_TO_EJHQX_ACCOUNT],
      limit: [MINT_TO_EJHQX_ACCOUNT],
      unknownBefore: [],
      tooMany: { code: -32602, message: 'Invalid limit; max 1000' },
      none: { code: -32602, message: 'Invalid limit; max 1000' },
      short: { code: -32602, message: 'Invalid param: WrongSize' },
      notBase58: { code: -32602, message: 'Invalid param: Invalid' },
      processed: { code: -32602, message: 'Method does not support commitment below `confirmed`' },
    })
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
