import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type BlockfrostTx, type BlockfrostUtxos, stakeAddressOf } from '../../src/chains/explorers/cardano.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local Blockfrost for Cardano tests and benchmarks: the examples of Blockfrost's published OpenAPI
 * spec (addresses, stake keys, a self-payment, an asset's metadata, the latest block) and generated
 * transactions in the same shapes.
 */

type Examples = { endpoints: Record<string, { example_response: unknown }> }
const examples: Examples = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/blockfrost/cardano_blockfrost_examples.json'), 'utf8'),
)
/** The example answer of one of Blockfrost's endpoints (`/txs/{hash}/utxos`…). */
export const blockfrostExample = <T>(path: string) => examples.endpoints[path]?.example_response as T

export const ADA = 1_000_000n
/** Blockfrost's answer for anything it does not have. */
export const BLOCKFROST_NOT_FOUND: ExplorerAnswer = {
  status: 404,
  body: { status_code: 404, error: 'Not Found', message: 'The requested component has not been found.' },
}

/** An input or output: an address, lovelace, and optionally `nut` of the example asset. */
export type CardanoIo = { address: string; ada: bigint; nut?: bigint; collateral?: boolean }
type Tx = { tx: BlockfrostTx; utxos: BlockfrostUtxos; withdrawals: { address: string; amount: string }[] }

/** A transaction hash from a number. */
export const cardanoHash = (n: number) => n.toString(16).padStart(64, '0')

/**
 * Blockfrost's answers from transactions added with `addTx` (in the example `/txs/{hash}` shape, the
 * example asset as `nut`): the latest block, `/addresses/{a}/transactions` and
 * `/accounts/{stake}/transactions` oldest first with `count`, `page` and `to` as the real API pages
 * them, `/txs/{h}`, `/txs/{h}/utxos`, `/txs/{h}/withdrawals`, the example asset's metadata; anything
 * else 404.
 */
export function blockfrost() {
  const recordedTx = blockfrostExample<BlockfrostTx>('/txs/{hash}')
  const latest = blockfrostExample<{ height: number; time: number }>('/blocks/latest')
  const asset = blockfrostExample<{ asset: string }>('/assets/{asset}')
  const nut = asset.asset
  const txs = new Map<string, Tx>()
  let byHeight: Tx[] | undefined
  const lovelace = (n: bigint) => [{ unit: 'lovelace', quantity: String(n) }]
  const amount = (x: { ada: bigint; nut?: bigint }) => [
    ...lovelace(x.ada),
    ...(x.nut === undefined ? [] : [{ unit: nut, quantity: String(x.nut) }]),
  ]

  /** Blockfrost's listing: one entry per (address, transaction), oldest first, up to `to`. */
  function listing(match: (address: string) => boolean, query: URLSearchParams, withAddress: boolean) {
    byHeight ??= [...txs.values()].sort((a, b) => a.tx.block_height - b.tx.block_height)
    const to = Number(query.get('to') ?? Number.MAX_SAFE_INTEGER)
    const entries = byHeight
      .filter((t) => t.tx.block_height <= to)
      .flatMap((t) =>
        [...new Set([...t.utxos.inputs, ...t.utxos.outputs].map((x) => x.address))].filter(match).map((address) => ({
          ...(withAddress ? { address } : {}),
          tx_hash: t.tx.hash,
          tx_index: t.tx.index,
          block_height: t.tx.block_height,
          block_time: t.tx.block_time,
        })),
      )
    const seen = new Set<string>()
    const unique = withAddress ? entries : entries.filter((e) => !seen.has(e.tx_hash) && seen.add(e.tx_hash))
    const count = Number(query.get('count') ?? 100)
    const page = Number(query.get('page') ?? 1)
    return unique.slice((page - 1) * count, page * count)
  }

  /** A transaction at `height` from `inputs` to `outputs` (the fee is what they leave over). */
  function addTx(
    hash: string,
    height: number,
    inputs: readonly CardanoIo[],
    outputs: readonly CardanoIo[],
    extra: Partial<BlockfrostTx> & { withdrawals?: { address: string; amount: string }[] } = {},
  ) {
    const { withdrawals = [], ...tx } = extra
    txs.set(hash, {
      tx: {
        ...recordedTx,
        hash,
        block_height: height,
        block_time: 1_700_000_000 + height,
        index: 0,
        deposit: '0',
        withdrawal_count: withdrawals.length,
        valid_contract: true,
        ...tx,
      },
      utxos: {
        hash,
        inputs: inputs.map((i) => ({
          address: i.address,
          amount: amount(i),
          collateral: i.collateral ?? false,
          reference: false,
        })),
        outputs: outputs.map((o) => ({ address: o.address, amount: amount(o), collateral: o.collateral ?? false })),
      },
      withdrawals,
    })
    byHeight = undefined
  }

  return {
    latest,
    nut,
    addTx,
    /**
     * A payment at `height`: `from` spends one output of `spent` lovelace, pays `to` `ada` lovelace (and
     * `nut`, all it spends of it) and takes the change back, less `fee`.
     */
    addPayment(
      hash: string,
      height: number,
      { from, to, spent, ada, nut, fee }: { from: string; to: string; spent: bigint; ada: bigint; nut?: bigint; fee: bigint },
    ) {
      const tokens = nut === undefined ? {} : { nut }
      addTx(
        hash,
        height,
        [{ address: from, ada: spent, ...tokens }],
        [
          { address: to, ada, ...tokens },
          { address: from, ada: spent - ada - fee },
        ],
      )
    },
    /** A transaction as Blockfrost gives it (a recorded one). */
    setTx(tx: BlockfrostTx, utxos: BlockfrostUtxos) {
      txs.set(tx.hash, { tx, utxos, withdrawals: [] })
      byHeight = undefined
    },
    answer(call: ExplorerCall): ExplorerAnswer {
      const path = call.path
      if (path === '/blocks/latest') return { body: latest }
      const byAddress = /^\/addresses\/([^/]+)\/transactions$/.exec(path)
      if (byAddress) return { body: listing((a) => a === byAddress[1], call.query, false) }
      const byStake = /^\/accounts\/([^/]+)\/transactions$/.exec(path)
      if (byStake) return { body: listing((a) => stakeAddressOf(a) === byStake[1], call.query, true) }
      const ofTx = /^\/txs\/([0-9a-f]+)(\/utxos|\/withdrawals)?$/.exec(path)
      if (ofTx) {
        const t = txs.get(ofTx[1] as string)
        if (t === undefined) return BLOCKFROST_NOT_FOUND
        return { body: ofTx[2] === '/utxos' ? t.utxos : ofTx[2] === '/withdrawals' ? t.withdrawals : t.tx }
      }
      if (path === `/assets/${nut}`) return { body: blockfrostExample('/assets/{asset}') }
      return BLOCKFROST_NOT_FOUND
    },
  }
}
