import { canonicalMoveAddress } from '../../config/addresses/move.ts'
import type { Transfer } from '../../domain/records.ts'
import type { JsonRpcClient } from '../../lib/json-rpc.ts'
import type { ExplorerSource } from './explorer-source.ts'
import { addTo, type Movement, pairChanges, toTransfer, touches, txIndexFromHash } from './movements.ts'
import { createTokenCache, explorerPage, tokensMoved } from './pages.ts'

/*
 * Sui through its JSON-RPC: `suix_queryTransactionBlocks` filtered by `FromAddress` and by
 * `ToAddress` (oldest first, 50 a page, `nextCursor` a digest: a position that new transactions never
 * shift) with effects and balance changes, `suix_getAllBalances`, `suix_getCoinMetadata` once per
 * coin type, `sui_getLatestCheckpointSequenceNumber` for the head. Final = in a checkpoint: a
 * certified checkpoint is final, and transactions not yet in one are left for a later request.
 */

export const SUI_COIN = '0x2::sui::SUI'
const TXS_PER_PAGE = 50
const FILTERS = { sent: 'FromAddress', received: 'ToAddress' } as const

type Owner = { AddressOwner?: string; ObjectOwner?: string; Shared?: unknown } | string
export type SuiTransaction = {
  digest: string
  timestampMs?: string
  checkpoint?: string
  transaction?: { data: { sender: string; gasData?: { owner: string } } }
  effects?: {
    status: { status: 'success' | 'failure'; error?: string }
    gasUsed: { computationCost: string; storageCost: string; storageRebate: string }
  }
  balanceChanges?: { owner: Owner; coinType: string; amount: string }[]
}

const ownerOf = (owner: Owner): string | undefined => {
  if (typeof owner === 'string') return undefined
  const address = owner.AddressOwner ?? owner.ObjectOwner
  return address === undefined ? undefined : (canonicalMoveAddress(address) ?? address)
}

/**
 * A transaction's movements, the same whoever asks: its gas (computation + storage − rebate, when
 * positive) as `fee` charged to the gas owner; then per coin type, the balance changes with the fee
 * taken back out of the gas owner's SUI change, paired from those who lost to those who gained
 * (`native` for SUI, `coin` for other coin types). A failed transaction moves only its gas. Each
 * address's records add up to its balance changes.
 */
export function transactionMovements(tx: SuiTransaction): Movement[] {
  const movements: Movement[] = []
  const gas = tx.effects?.gasUsed
  const payerText = tx.transaction?.data.gasData?.owner ?? tx.transaction?.data.sender
  const payer = payerText === undefined ? undefined : (canonicalMoveAddress(payerText) ?? payerText)
  const fee = gas === undefined ? 0n : BigInt(gas.computationCost) + BigInt(gas.storageCost) - BigInt(gas.storageRebate)
  if (fee > 0n && payer !== undefined) movements.push({ type: 'fee', from: payer, to: null, value: fee, contractAddress: null })
  if (tx.effects?.status.status !== 'success') return movements
  const byCoin = new Map<string, Map<string, bigint>>()
  for (const change of tx.balanceChanges ?? []) {
    const owner = ownerOf(change.owner)
    if (owner === undefined) continue
    const byOwner = byCoin.get(change.coinType) ?? new Map<string, bigint>()
    byCoin.set(change.coinType, byOwner)
    addTo(byOwner, owner, BigInt(change.amount))
  }
  if (fee > 0n && payer !== undefined) {
    const sui = byCoin.get(SUI_COIN) ?? new Map<string, bigint>()
    byCoin.set(SUI_COIN, sui)
    addTo(sui, payer, fee)
  }
  for (const [coinType, byOwner] of [...byCoin].sort(([a], [b]) =>
    a === SUI_COIN ? -1 : b === SUI_COIN ? 1 : a.localeCompare(b),
  )) {
    const native = coinType === SUI_COIN
    for (const move of pairChanges([...byOwner].map(([party, delta]) => ({ party, delta })))) {
      movements.push({ type: native ? 'native' : 'coin', ...move, contractAddress: native ? null : coinType })
    }
  }
  return movements
}

export function walletTransfers(tx: SuiTransaction, address: string): Transfer[] {
  const at = { blockNumber: Number(tx.checkpoint ?? 0), txIndex: txIndexFromHash(tx.digest), txHash: tx.digest }
  return transactionMovements(tx)
    .map((movement, seq) => toTransfer(at, seq, movement))
    .filter(touches(address))
}

/** Per filter, the digest after which to go on (undefined: from the start) and whether it reached the end. */
type SuiPosition = { sent?: string | undefined; received?: string | undefined }

export function createSuiSource({ rpc, chain = 'sui' }: { rpc: JsonRpcClient; chain?: string }): ExplorerSource {
  const query = (address: string, side: keyof typeof FILTERS, cursor: string | undefined) =>
    rpc.request<{ data: SuiTransaction[]; nextCursor: string | null; hasNextPage: boolean }>('suix_queryTransactionBlocks', [
      {
        filter: { [FILTERS[side]]: address },
        options: { showInput: true, showEffects: true, showBalanceChanges: true },
      },
      cursor ?? null,
      TXS_PER_PAGE,
      false,
    ])

  const tokensOf = createTokenCache({
    async each(coinType) {
      const meta = await rpc.request<{ name?: string; symbol?: string; decimals?: number } | null>('suix_getCoinMetadata', [
        coinType,
      ])
      return {
        contractAddress: coinType,
        name: meta?.name ?? null,
        symbol: meta?.symbol ?? null,
        decimals: meta?.decimals ?? null,
      }
    },
  })

  async function toPage(address: string, txs: readonly SuiTransaction[], position: SuiPosition, complete: boolean) {
    const records = txs.map((tx) => ({
      block: { number: Number(tx.checkpoint ?? 0), hash: '', timestamp: Math.floor(Number(tx.timestampMs ?? 0) / 1000) },
      transfers: walletTransfers(tx, address),
    }))
    return explorerPage(records, await tokensOf(tokensMoved(records)), position, complete)
  }

  return {
    chain,

    async getHead() {
      const checkpoint = await rpc.request<string>('sui_getLatestCheckpointSequenceNumber', [])
      return { number: Number(checkpoint), hash: '', parentHash: '', timestamp: Math.floor(Date.now() / 1000) }
    },

    async *readHistory(address, stored) {
      const position: SuiPosition = { ...(stored as SuiPosition | undefined) }
      for (const side of ['sent', 'received'] as const) {
        for (;;) {
          const page = await query(address, side, position[side])
          // not yet in a checkpoint: not final, read again later from before it
          const cut = page.data.findIndex((tx) => tx.checkpoint === undefined || tx.checkpoint === null)
          const final = cut === -1 ? page.data : page.data.slice(0, cut)
          position[side] = final.at(-1)?.digest ?? position[side]
          const last = !page.hasNextPage || cut !== -1
          yield await toPage(address, final, { ...position }, last && side === 'received')
          if (last) break
        }
      }
    },

    async readBalances(address) {
      const head = await this.getHead()
      const balances = await rpc.request<{ coinType: string; totalBalance: string }[]>('suix_getAllBalances', [address])
      const coins = balances.filter((b) => b.coinType !== SUI_COIN)
      return {
        head,
        balances: [
          {
            contractAddress: null,
            type: 'native',
            amount: BigInt(balances.find((b) => b.coinType === SUI_COIN)?.totalBalance ?? '0'),
          },
          ...coins.map((b) => ({ contractAddress: b.coinType, type: 'coin', amount: BigInt(b.totalBalance) })),
        ],
        tokens: await tokensOf(coins.map((b) => b.coinType)),
      }
    },
  }
}
