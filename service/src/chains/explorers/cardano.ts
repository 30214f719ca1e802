import { bech32 } from '@scure/base'
import type { Token, Transfer } from '../../domain/records.ts'
import { type UtxoAmount, utxoRecords } from '../../domain/utxo-records.ts'
import { UpstreamError } from '../../lib/errors.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import type { ExplorerSource } from './explorer-source.ts'
import { createTokenCache, explorerPage, mapConcurrently, tokensMoved } from './pages.ts'

/*
 * Cardano through Blockfrost: `/addresses/{a}/transactions` (or `/accounts/{stake}/transactions` for
 * a stake-key wallet: all the addresses staked to it), oldest first with `count`/`page` and `to` the
 * final height, so that a position is a count that new transactions never shift; per transaction
 * `/txs/{h}` (block, index, fee, deposit, validity) and `/txs/{h}/utxos`, `/txs/{h}/withdrawals`
 * when it has some; `/addresses/{a}` or `/accounts/{stake}` (+ its assets) for balances;
 * `/assets/{unit}` once per native asset for its name, ticker and decimals; `/blocks/latest`.
 *
 * Final = at least FINAL_CONFIRMATIONS blocks deep. Ouroboros Praos only guarantees k = 2160 blocks
 * (about 12 h); mainnet rollbacks beyond a few blocks have not been seen, and 15 blocks (about
 * 5 minutes) is what exchanges commonly wait: a record newer than that is read on a later request.
 */

export const FINAL_CONFIRMATIONS = 15
const TXS_PER_PAGE = 100
const CONCURRENT_TRANSACTIONS = 8
const LOVELACE = 'lovelace'
/** The records of a stake-key wallet's view of a transaction are numbered apart from those of its addresses'. */
const STAKE_VIEW_SEQ = 2 ** 32

type Quantity = { unit: string; quantity: string }
type TxInput = { address: string; amount: Quantity[]; collateral?: boolean; reference?: boolean }
type TxOutput = { address: string; amount: Quantity[]; collateral?: boolean }

export type BlockfrostUtxos = { hash: string; inputs: TxInput[]; outputs: TxOutput[] }
export type BlockfrostTx = {
  hash: string
  block_height: number
  block_time: number
  index: number
  fees: string
  deposit: string
  withdrawal_count: number
  valid_contract: boolean
  treasury_donation?: string
}
export type BlockfrostWithdrawal = { address: string; amount: string }
export type CardanoTransaction = { tx: BlockfrostTx; utxos: BlockfrostUtxos; withdrawals: readonly BlockfrostWithdrawal[] }

/**
 * The stake address (`stake1…`) a Shelley base address delegates to, the stake address itself, or
 * undefined (enterprise, pointer and Byron addresses have none).
 */
export function stakeAddressOf(address: string): string | undefined {
  let prefix: string
  let bytes: Uint8Array
  try {
    const decoded = bech32.decode(address as `${string}1${string}`, 200)
    prefix = decoded.prefix
    bytes = bech32.fromWords(decoded.words)
  } catch {
    return undefined
  }
  if (prefix === 'stake' || prefix === 'stake_test') return address
  const header = bytes[0] ?? 0xff
  const type = header >> 4
  if (type > 3 || bytes.length !== 57) return undefined
  // base address: payment part (28 bytes), then the stake key hash (types 0, 2) or script hash (1, 3)
  const stakeHeader = (type === 0 || type === 2 ? 0xe0 : 0xf0) | (header & 0x0f)
  const stake = Uint8Array.of(stakeHeader, ...bytes.slice(29))
  return bech32.encode((header & 0x0f) === 1 ? 'stake' : 'stake_test', bech32.toWords(stake), 200)
}

const isStakeAddress = (address: string) => address.startsWith('stake')

/**
 * The records of a transaction for `wallet` (an address, or a stake address standing for all the
 * addresses staked to it), by the UTXO rule (domain/utxo-records.ts): one `in` or `out` record of
 * its net movement per asset with the other parties as counterparties, its share of the fee as a
 * `fee` record, change back to itself no movement. A transaction whose scripts failed
 * (`valid_contract` false) spends its collateral inputs into its collateral return instead: its
 * only movement is the collateral lost, as fee. Reward withdrawals are inputs from the stake
 * address; a deposit (key or pool registration) and a treasury donation are value to no one, a
 * deposit refund value from no one. Native assets minted come from no one, burnt go to no one.
 *
 * Records are derived from the transaction and the view alone (address view: every address its own
 * party; stake view: addresses grouped by stake key), the same whoever asks: seq = view offset +
 * asset index (lovelace 0, then units in order) × 2 × parties + the party's own seq.
 */
export function walletTransfers(t: CardanoTransaction, wallet: string): Transfer[] {
  const stakeView = isStakeAddress(wallet)
  const walletOf = stakeView ? (address: string) => stakeAddressOf(address) ?? address : (address: string) => address
  const valid = t.tx.valid_contract
  const inputs = t.utxos.inputs.filter((i) => (valid ? !i.collateral && !i.reference : i.collateral === true))
  const outputs = t.utxos.outputs.filter((o) => (valid ? !o.collateral : o.collateral === true))
  const units = [
    LOVELACE,
    ...[...new Set([...inputs, ...outputs].flatMap((x) => x.amount.map((a) => a.unit)))].filter((u) => u !== LOVELACE).sort(),
  ]
  const parties = new Set([...inputs, ...outputs].map((x) => walletOf(x.address)))
  for (const w of t.withdrawals) parties.add(walletOf(w.address))
  const stride = 2 * (parties.size + 1)
  const records: Transfer[] = []
  units.forEach((unit, index) => {
    const amountOf = (x: { amount: Quantity[] }) =>
      x.amount.filter((a) => a.unit === unit).reduce((sum, a) => sum + BigInt(a.quantity), 0n)
    const ins: UtxoAmount[] = inputs.map((i) => ({ address: i.address, value: amountOf(i) })).filter((i) => i.value > 0n)
    const outs: UtxoAmount[] = outputs.map((o) => ({ address: o.address, value: amountOf(o) })).filter((o) => o.value > 0n)
    if (unit === LOVELACE) {
      if (valid) {
        for (const w of t.withdrawals) ins.push({ address: w.address, value: BigInt(w.amount) })
        const deposit = BigInt(t.tx.deposit)
        if (deposit > 0n) outs.push({ address: null, value: deposit })
        if (deposit < 0n) ins.push({ address: null, value: -deposit })
        const donation = BigInt(t.tx.treasury_donation ?? '0')
        if (donation > 0n) outs.push({ address: null, value: donation })
      }
    } else {
      const minted = outs.reduce((s, o) => s + o.value, 0n) - ins.reduce((s, i) => s + i.value, 0n)
      if (minted > 0n) ins.push({ address: null, value: minted })
      if (minted < 0n) outs.push({ address: null, value: -minted })
    }
    if (ins.length === 0 && outs.length === 0) return
    const utxoTx = { hash: t.tx.hash, index: t.tx.index, coinbase: false, inputs: ins, outputs: outs }
    for (const record of utxoRecords(t.tx.block_height, utxoTx, walletOf)) {
      if (record.wallet !== wallet) continue
      const { wallet: _, ...transfer } = record
      const token = unit !== LOVELACE
      records.push({
        ...transfer,
        seq: (stakeView ? STAKE_VIEW_SEQ : 0) + index * stride + record.seq,
        // a stake-key wallet's records are filed under the stake address
        from: transfer.from === null ? null : stakeView ? wallet : transfer.from,
        to: transfer.to === null ? null : stakeView ? wallet : transfer.to,
        type: token ? 'cardano_asset' : transfer.type,
        contractAddress: token ? unit : null,
        batchIndex: token ? 0 : null,
      })
    }
  })
  return records
}

/** A native asset's name and ticker from its registered metadata, else its on-chain name. */
export function assetToken(asset: {
  asset: string
  asset_name?: string | null
  metadata?: { name?: string; ticker?: string; decimals?: number } | null
}): Token {
  const onChainName = asset.asset_name ? Buffer.from(asset.asset_name, 'hex').toString('utf8') : ''
  const printable = /^[\x20-\x7e]+$/.test(onChainName) ? onChainName : null
  return {
    contractAddress: asset.asset,
    name: asset.metadata?.name ?? printable,
    symbol: asset.metadata?.ticker ?? printable,
    // quantities on Cardano are whole units unless the registry says otherwise
    decimals: asset.metadata?.decimals ?? 0,
  }
}

type CardanoPosition = { read: number }

export function createCardanoSource({ http, chain = 'cardano' }: { http: HttpClient; chain?: string }): ExplorerSource {
  /** Blockfrost answers 404 for an address or stake key the chain has never seen. */
  async function orNotFound<T>(request: Promise<T>, empty: T): Promise<T> {
    try {
      return await request
    } catch (error) {
      if (error instanceof UpstreamError && error.upstreamStatus === 404) return empty
      throw error
    }
  }

  const latest = () =>
    http.json<{ height: number; hash: string; time: number; previous_block?: string }>({ path: '/blocks/latest' })

  const listing = (wallet: string, page: number, finalHeight: number) =>
    orNotFound(
      http.json<{ tx_hash: string }[]>({
        path: isStakeAddress(wallet) ? `/accounts/${wallet}/transactions` : `/addresses/${wallet}/transactions`,
        query: { count: TXS_PER_PAGE, page, order: 'asc', to: String(finalHeight) },
      }),
      [],
    )

  async function readTransaction(hash: string): Promise<CardanoTransaction> {
    const [tx, utxos] = await Promise.all([
      http.json<BlockfrostTx>({ path: `/txs/${hash}` }),
      http.json<BlockfrostUtxos>({ path: `/txs/${hash}/utxos` }),
    ])
    const withdrawals =
      tx.withdrawal_count > 0 ? await http.json<BlockfrostWithdrawal[]>({ path: `/txs/${hash}/withdrawals` }) : []
    return { tx, utxos, withdrawals }
  }

  const readTransactions = (hashes: readonly string[]) => mapConcurrently(hashes, CONCURRENT_TRANSACTIONS, readTransaction)

  const tokensOf = createTokenCache({
    each: async (unit) =>
      assetToken(await orNotFound(http.json<Parameters<typeof assetToken>[0]>({ path: `/assets/${unit}` }), { asset: unit })),
  })

  return {
    chain,

    async getHead() {
      const block = await latest()
      const final = Math.max(0, block.height - FINAL_CONFIRMATIONS)
      return { number: final, hash: final === block.height ? block.hash : '', parentHash: '', timestamp: block.time }
    },

    async *readHistory(wallet, stored) {
      const position: CardanoPosition = { read: 0, ...(stored as Partial<CardanoPosition> | undefined) }
      const finalHeight = (await this.getHead()).number
      for (;;) {
        const list = await listing(wallet, Math.floor(position.read / TXS_PER_PAGE) + 1, finalHeight)
        const fresh = [...new Set(list.slice(position.read % TXS_PER_PAGE).map((entry) => entry.tx_hash))]
        position.read += list.length - (position.read % TXS_PER_PAGE)
        const txs = await readTransactions(fresh)
        const records = txs.map((t) => ({
          block: { number: t.tx.block_height, hash: '', timestamp: t.tx.block_time },
          transfers: walletTransfers(t, wallet),
        }))
        const complete = list.length < TXS_PER_PAGE
        yield explorerPage(records, await tokensOf(tokensMoved(records)), { ...position }, complete)
        if (complete) return
      }
    },

    async readBalances(wallet) {
      const head = await this.getHead()
      let amounts: Quantity[]
      if (isStakeAddress(wallet)) {
        const account = await orNotFound(http.json<{ controlled_amount: string }>({ path: `/accounts/${wallet}` }), {
          controlled_amount: '0',
        })
        amounts = [{ unit: LOVELACE, quantity: account.controlled_amount }]
        for (let page = 1; ; page++) {
          const assets = await orNotFound(
            http.json<Quantity[]>({ path: `/accounts/${wallet}/addresses/assets`, query: { count: 100, page } }),
            [],
          )
          amounts.push(...assets)
          if (assets.length < 100) break
        }
      } else {
        amounts = (await orNotFound(http.json<{ amount: Quantity[] }>({ path: `/addresses/${wallet}` }), { amount: [] })).amount
      }
      const byUnit = new Map<string, bigint>()
      for (const a of amounts) byUnit.set(a.unit, (byUnit.get(a.unit) ?? 0n) + BigInt(a.quantity))
      const units = [...byUnit.keys()].filter((unit) => unit !== LOVELACE)
      return {
        head,
        balances: [
          { contractAddress: null, type: 'native', amount: byUnit.get(LOVELACE) ?? 0n },
          ...units.map((unit) => ({ contractAddress: unit, type: 'cardano_asset', amount: byUnit.get(unit) ?? 0n })),
        ],
        tokens: await tokensOf(units),
      }
    },
  }
}
