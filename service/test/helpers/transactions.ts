import { expect } from 'vitest'

/** A record of an entry, as /transfers serves it (the fields the checks read). */
export type EntryRecord = {
  id: string
  type: string
  from: string | null
  to: string | null
  valueRaw: string
  contractAddress: string | null
  tokenId: string | null
  direction: 'in' | 'out'
}

/** An entry of /transactions (the fields the checks read). */
export type Entry = {
  id: string
  chain: string
  txHash: string
  blockNumber: number
  category: string
  rule: { id: string; explanation: string }
  initiatedByWallet: boolean
  status: 'success' | 'failed'
  fee: EntryRecord | null
  movements: EntryRecord[]
  net: { contractAddress: string | null; tokenId: string | null; value: string; valueRaw: string }[]
}

const assetOf = (r: { contractAddress: string | null; tokenId: string | null }) =>
  r.contractAddress === null ? '' : r.tokenId === null ? r.contractAddress : `${r.contractAddress}:${r.tokenId}`

/** Asserts that an entry's net is, per asset, what its movements and fee add up to (a self-transfer nets 0). */
export function checkNet(entry: Entry, wallet: string): void {
  const sums = new Map<string, bigint>()
  for (const r of [...entry.movements, ...(entry.fee === null ? [] : [entry.fee])]) {
    const self = r.type !== 'fee' && r.from === wallet && r.to === wallet
    const signed = self ? 0n : r.direction === 'in' ? BigInt(r.valueRaw) : -BigInt(r.valueRaw)
    sums.set(assetOf(r), (sums.get(assetOf(r)) ?? 0n) + signed)
  }
  const net = new Map(entry.net.map((line) => [assetOf(line), BigInt(line.valueRaw)]))
  expect({ tx: entry.txHash, net }).toEqual({ tx: entry.txHash, net: sums })
  for (const line of entry.net) expect(line.value.replace('.', '').replace(/^(-?)0+(?=\d)/, '$1')).toBe(line.valueRaw)
}

/** Every entry's net added up per asset (the coin under ''). */
export function sumNets(entries: readonly Entry[]): Map<string, bigint> {
  const totals = new Map<string, bigint>()
  for (const entry of entries) {
    for (const line of entry.net) totals.set(assetOf(line), (totals.get(assetOf(line)) ?? 0n) + BigInt(line.valueRaw))
  }
  return totals
}

/** Follows the cursor from the first page to the last; each page's entries. */
export async function walkPages(
  read: (
    cursor: string | null,
  ) => Promise<{ status: number; body: { transactions: Entry[]; cursor: string | null; hasMore: boolean } }>,
): Promise<Entry[][]> {
  const pages: Entry[][] = []
  let cursor: string | null = null
  do {
    const { status, body } = await read(cursor)
    expect(status).toBe(200)
    expect(body.hasMore).toBe(body.cursor !== null)
    pages.push(body.transactions)
    cursor = body.cursor
  } while (cursor !== null && pages.length < 1_000)
  return pages
}
