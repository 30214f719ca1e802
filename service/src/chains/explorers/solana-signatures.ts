import { mapConcurrently } from './pages.ts'

/*
 * The signatures of a Solana wallet's history are those of several addresses: the wallet's own and
 * each of its token accounts' (a token transfer names the token accounts and the sender's authority,
 * never the receiving wallet). `getSignaturesForAddress` lists one address's, newest first, up to
 * 1000 at a time, going on `before` a signature and stopping at `until` one. These functions walk
 * several such lists as one, newest first, each address keeping its own place.
 */

export type SignatureInfo = { signature: string; slot: number; blockTime: number | null; err: unknown }

/** How far one address's signatures have been read. */
export type AddressProgress = {
  /** The newest signature read (later reads stop there). */
  newest?: string | undefined
  /** The oldest read: the backfill goes on before it. */
  oldest?: string | undefined
  /** Whether the backfill reached the address's first transaction. */
  done: boolean
}

/** Per address (the wallet, its token accounts), how far it has been read. */
export type Progress = { readonly [address: string]: AddressProgress }

export type FetchSignatures = (address: string, cursor: { before?: string; until?: string }) => Promise<SignatureInfo[]>

/** The addresses not yet in `progress` added to it, to be read from their newest transaction. */
export function withAddresses(progress: Progress, addresses: Iterable<string>): Progress {
  const out = { ...progress }
  for (const address of addresses) out[address] ??= { done: false }
  return out
}

export const backfillDone = (progress: Progress) => Object.values(progress).every((p) => p.done)

/** Signatures newest first by slot (a stable sort: each list's own order within a slot is kept), each once. */
function mergeNewestFirst(lists: readonly (readonly SignatureInfo[])[]): SignatureInfo[] {
  const seen = new Set<string>()
  const merged: SignatureInfo[] = []
  for (const info of lists.flat()) {
    if (seen.has(info.signature)) continue
    seen.add(info.signature)
    merged.push(info)
  }
  return merged.sort((a, b) => b.slot - a.slot)
}

/**
 * The next page of the backfill over every address not read to its end: one `getSignaturesForAddress`
 * each, before its oldest signature read. A page holds what is above the `floor` slot, below which
 * some address may have signatures not yet listed: the oldest slot of any list that came back full
 * (`limit`), raised so that a page holds about `limit` signatures. So every signature newer than the
 * page's oldest slot is in this page or an earlier one, and each address goes on after the last of
 * its own it gave. Only when one slot fills a whole list is that slot taken in (then a signature of
 * it listed by two addresses may come again in the next page: it is stored once).
 */
export async function readOlderPage(
  fetch: FetchSignatures,
  progress: Progress,
  { limit, concurrency }: { limit: number; concurrency: number },
): Promise<{ signatures: SignatureInfo[]; progress: Progress }> {
  const open = Object.entries(progress).filter(([, p]) => !p.done)
  const lists = await mapConcurrently(open, concurrency, ([address, p]) =>
    fetch(address, p.oldest === undefined ? {} : { before: p.oldest }),
  )
  let floor = Number.NEGATIVE_INFINITY
  for (const list of lists) if (list.length >= limit) floor = Math.max(floor, (list.at(-1) as SignatureInfo).slot)
  const newest = mergeNewestFirst(lists)
  if (newest.length > limit) floor = Math.max(floor, (newest[limit - 1] as SignatureInfo).slot)
  const above = (info: SignatureInfo) => info.slot > floor
  const taken = lists.some((list) => list.some(above)) ? above : (info: SignatureInfo) => info.slot >= floor

  const next: Record<string, AddressProgress> = { ...progress }
  const kept = lists.map((list, i) => {
    const [address, p] = open[i] as [string, AddressProgress]
    const mine = list.filter(taken)
    next[address] = {
      newest: p.newest ?? list[0]?.signature,
      oldest: mine.at(-1)?.signature ?? p.oldest,
      done: mine.length === list.length && list.length < limit,
    }
    return mine
  })
  return { signatures: mergeNewestFirst(kept), progress: next }
}

/**
 * Everything newer than the newest signature read of each of `addresses` (all of an address's when
 * none was), newest first: `getSignaturesForAddress` with `until`, page after page while full.
 */
export async function readNewer(
  fetch: FetchSignatures,
  progress: Progress,
  addresses: readonly string[],
  { limit, concurrency }: { limit: number; concurrency: number },
): Promise<{ signatures: SignatureInfo[]; progress: Progress }> {
  const lists = await mapConcurrently(addresses, concurrency, async (address) => {
    const until = progress[address]?.newest
    const list: SignatureInfo[] = []
    for (;;) {
      const before = list.at(-1)?.signature
      const page = await fetch(address, {
        ...(before === undefined ? {} : { before }),
        ...(until === undefined ? {} : { until }),
      })
      list.push(...page)
      if (page.length < limit) return list
    }
  })
  const next: Record<string, AddressProgress> = { ...progress }
  addresses.forEach((address, i) => {
    const p = progress[address] ?? { done: true }
    next[address] = { ...p, newest: lists[i]?.[0]?.signature ?? p.newest }
  })
  return { signatures: mergeNewestFirst(lists), progress: next }
}
