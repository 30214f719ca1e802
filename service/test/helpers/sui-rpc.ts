import type { SuiTransaction } from '../../src/chains/explorers/sui.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local Sui fullnode JSON-RPC for tests and benchmarks. Only documentation examples exist for Sui
 * (GetBlock's `sui_getLatestCheckpointSequenceNumber` → "507021", the `suix_queryTransactionBlocks`
 * paging shape): transactions are generated in the documented shape with balance changes.
 */

/** A 0x-64-hex address from a number. */
export const suiAddress = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}`
export const SUI = '0x2::sui::SUI'
/** The generated transactions' gas: computation + storage − rebate = SUI_FEE. */
export const SUI_GAS = { computationCost: '1000000', storageCost: '2000000', storageRebate: '978120' }
export const SUI_FEE = 2_021_880n
/** GetBlock's documented `sui_getLatestCheckpointSequenceNumber` answer. */
export const SUI_HEAD = '507021'

/** A generated transaction with what the node lists it under: its sender, and the owners it paid. */
export type ListedSuiTransaction = SuiTransaction & { sender: string; to: string[] }

/** A transaction of `sender` with balance changes `[owner, coinType, amount]`, in checkpoint 100000 + n. */
export function suiTransaction(
  n: number,
  sender: string,
  changes: readonly (readonly [string, string, bigint])[],
  extra: Partial<SuiTransaction> = {},
): ListedSuiTransaction {
  return {
    digest: `D${String(n).padStart(43, '0')}`,
    timestampMs: String(1_700_000_000_000 + n * 1000),
    checkpoint: String(100_000 + n),
    transaction: { data: { sender } },
    effects: { status: { status: 'success' }, gasUsed: SUI_GAS },
    balanceChanges: changes.map(([owner, coinType, amount]) => ({
      owner: { AddressOwner: owner },
      coinType,
      amount: String(amount),
    })),
    sender,
    to: changes.filter(([, , a]) => a > 0n).map(([o]) => o),
    ...extra,
  }
}

/** A payment of `mist` SUI from → to, its gas paid by the sender (generated wallets for paging and benchmarks). */
export const suiPayment = (n: number, from: string, to: string, mist: bigint) =>
  suiTransaction(n, from, [
    [from, SUI, -mist - SUI_FEE],
    [to, SUI, mist],
  ])

/**
 * The node's answers: `suix_queryTransactionBlocks` by `FromAddress` or `ToAddress` in the order the
 * transactions were added (oldest first), `limit` a page with `nextCursor` (a digest) and
 * `hasNextPage` as the real node gives them; `suix_getAllBalances` and `suix_getCoinMetadata` as given.
 */
export function suiRpc({
  head = SUI_HEAD,
  balances = () => [],
  coinMetadata = () => null,
}: {
  head?: string
  balances?: (owner: string) => unknown[]
  coinMetadata?: (coinType: string) => unknown
} = {}) {
  const sent = new Map<string, ListedSuiTransaction[]>()
  const received = new Map<string, ListedSuiTransaction[]>()
  const push = (index: Map<string, ListedSuiTransaction[]>, address: string, tx: ListedSuiTransaction) => {
    const list = index.get(address) ?? []
    list.push(tx)
    index.set(address, list)
  }
  return {
    /** Adds transactions, newer than those already there. */
    add(...txs: ListedSuiTransaction[]) {
      for (const tx of txs) {
        push(sent, tx.sender, tx)
        for (const to of new Set(tx.to)) push(received, to, tx)
      }
    },
    answer(call: ExplorerCall): ExplorerAnswer {
      const body = call.body as { method: string; params: unknown[] }
      if (body.method === 'sui_getLatestCheckpointSequenceNumber') return { body: head }
      if (body.method === 'suix_queryTransactionBlocks') {
        const [q, cursor, limit] = body.params as [
          { filter: { FromAddress?: string; ToAddress?: string } },
          string | null,
          number,
        ]
        const mine =
          q.filter.FromAddress !== undefined
            ? (sent.get(q.filter.FromAddress) ?? [])
            : (received.get(q.filter.ToAddress ?? '') ?? [])
        const start = cursor === null ? 0 : mine.findIndex((t) => t.digest === cursor) + 1
        const data = mine.slice(start, start + limit).map(({ sender: _, to: __, ...t }) => t)
        return { body: { data, nextCursor: data.at(-1)?.digest ?? cursor, hasNextPage: start + limit < mine.length } }
      }
      if (body.method === 'suix_getAllBalances') return { body: balances((body.params as [string])[0]) }
      if (body.method === 'suix_getCoinMetadata') return { body: coinMetadata((body.params as [string])[0]) }
      return { status: 400, body: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } } }
    },
  }
}
