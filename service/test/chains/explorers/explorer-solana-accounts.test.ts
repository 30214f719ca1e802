import { describe, expect, test } from 'vitest'
import { createSolanaSource } from '../../../src/chains/explorers/solana.ts'
import {
  backfillDone,
  type FetchSignatures,
  type Progress,
  readNewer,
  readOlderPage,
  type SignatureInfo,
  withAddresses,
} from '../../../src/chains/explorers/solana-signatures.ts'
import { createJsonRpcClient } from '../../../src/lib/json-rpc.ts'
import {
  ask,
  CLOSED_ACCOUNT,
  EJHQX,
  EJHQX_ACCOUNT,
  emptyAndClose,
  FBQYJ,
  FBQYJ_ACCOUNT,
  MINT_TO_EJHQX_ACCOUNT,
  RECEIVER,
  receiverHistory,
  SENDER,
  SENDER_EJHQX,
  sent,
  signatureOf,
  signaturesFrom,
  thirdParty,
} from '../../helpers/solana-receiver.ts'
import { solanaRpc } from '../../helpers/solana-rpc.ts'
import {
  generatedAddress,
  generatedTokenTransfer,
  generatedTransfer,
  loadRecordedSolanaTransactions,
} from '../../helpers/solana-transactions.ts'

/**
 * A Solana wallet's history is the signatures of the wallet and of its token accounts, read as one
 * list (chains/explorers/solana-signatures.ts), on the JSON-RPC stand-in called in process: paging
 * (with a small `limit`), resuming from a stored position, what is newer; a position stored before
 * token accounts were read; and the stand-in's own `getSignaturesForAddress` checks, Agave's.
 */

const recorded = loadRecordedSolanaTransactions()
const COUNTERPARTY = '9QC3q9XT3Pq81DuM2Lt7yqkCY8uZZEtiNziJgrYp6SLj'

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
