import { InternalError } from '../lib/errors.ts'
import type { Counterparty, Transfer } from './records.ts'

/** One side of a UTXO transaction as accounting sees it: who (null: no address stands for it) and how much. */
export type UtxoAmount = { readonly address: string | null; readonly value: bigint }

/** A transaction with the value of every input (its spent output) and every output. */
export type UtxoTransaction = {
  readonly hash: string
  readonly index: number
  readonly coinbase: boolean
  readonly inputs: readonly UtxoAmount[]
  readonly outputs: readonly UtxoAmount[]
}

/** A record with the wallet it belongs to (a UTXO record is one wallet's view of a transaction). */
export type UtxoRecord = Transfer & { readonly wallet: string }

type Party = {
  readonly wallet: string | null
  readonly order: number
  inputs: bigint
  outputs: bigint
  fee: bigint
  net: bigint
  /** The party's address that gave most (`out`, `fee`) and received most (`in`). */
  topInput: UtxoAmount | undefined
  topOutput: UtxoAmount | undefined
}

/**
 * The records of a UTXO transaction (DESIGN, "Records across chain families"): for each wallet that
 * takes part, one `in` or one `out` record of its net movement with everyone else, and a `fee` record
 * of its share of the fee. A wallet's records sum to its balance change:
 * in − out − fee = Σ outputs to it − Σ its inputs; change back to it is never a movement.
 *
 * - A wallet is an address, or a set of addresses (`walletOf` maps each address to its wallet: the
 *   addresses derived from one extended key), so that transfers within it are not movements.
 * - The fee (Σ inputs − Σ outputs) is split by input share: each funding wallet gets
 *   ⌊fee × its inputs / all inputs⌋ and the satoshis left over go one each to the largest
 *   remainders (ties: the wallet whose first input comes first), so the shares sum to the fee.
 * - net = Σ outputs to it − Σ its inputs + its fee share: positive is an `in` record, negative an `out`.
 *   `counterparties` lists every other wallet on the opposite side with its net, largest first
 *   (ties: first to appear); the first is the main counterparty the API shows as `from`/`to`.
 *   An `out` record is stored with `to` null and an `in` record with `from` null: each record is
 *   filed under its own wallet only.
 * - A coinbase's outputs are `reward` records with `from` null and no counterparties.
 * - Inputs and outputs without an address (OP_RETURN, non-standard) count in the fee and the
 *   totals but belong to no wallet: value burnt in an OP_RETURN is part of the sender's `out`.
 * - seq is 2k for the movement and 2k + 1 for the fee of the k-th wallet to appear (inputs first,
 *   then outputs): the same every time the transaction is read.
 */
export function utxoRecords(
  blockNumber: number,
  tx: UtxoTransaction,
  walletOf: (address: string) => string = (address) => address,
): UtxoRecord[] {
  const parties = new Map<string | null, Party>()
  const partyOf = (address: string | null): Party => {
    const wallet = address === null ? null : walletOf(address)
    let party = parties.get(wallet)
    if (party === undefined) {
      party = {
        wallet,
        order: parties.size,
        inputs: 0n,
        outputs: 0n,
        fee: 0n,
        net: 0n,
        topInput: undefined,
        topOutput: undefined,
      }
      parties.set(wallet, party)
    }
    return party
  }
  let totalIn = 0n
  let totalOut = 0n
  for (const input of tx.inputs) {
    const party = partyOf(input.address)
    party.inputs += input.value
    totalIn += input.value
    if (party.topInput === undefined || input.value > party.topInput.value) party.topInput = input
  }
  for (const output of tx.outputs) {
    const party = partyOf(output.address)
    party.outputs += output.value
    totalOut += output.value
    if (party.topOutput === undefined || output.value > party.topOutput.value) party.topOutput = output
  }
  const fee = tx.coinbase ? 0n : totalIn - totalOut
  if (fee < 0n) throw new InternalError(`transaction ${tx.hash} spends ${totalIn} but creates ${totalOut}`)
  splitFee(fee, totalIn, [...parties.values()])
  for (const party of parties.values()) party.net = party.outputs - party.inputs + party.fee

  const addressed = [...parties.values()].filter((p) => p.wallet !== null)
  const receivers = addressed.filter((p) => p.net > 0n).sort(bySize)
  const senders = addressed.filter((p) => p.net < 0n).sort(bySize)
  const listed = (list: Party[], self: Party, sign: bigint): Counterparty[] =>
    list
      .filter((p) => p !== self)
      .map((p) => ({ address: (sign > 0n ? p.topOutput : p.topInput)?.address as string, value: p.net * sign }))

  // each record is one object literal of one shape (no spread: the hottest allocation of a UTXO backfill)
  const record = (
    party: Party,
    seq: number,
    type: UtxoRecord['type'],
    from: string | null,
    to: string | null,
    value: bigint,
    counterparties: Counterparty[] | null,
  ): UtxoRecord => ({
    blockNumber,
    txIndex: tx.index,
    txHash: tx.hash,
    contractAddress: null,
    tokenId: null,
    logIndex: null,
    batchIndex: null,
    operator: null,
    wallet: party.wallet as string,
    seq,
    type,
    from,
    to,
    value,
    counterparties,
  })
  const records: UtxoRecord[] = []
  for (let k = 0; k < addressed.length; k++) {
    const party = addressed[k] as Party
    if (party.net > 0n) {
      const counterparties = tx.coinbase ? [] : listed(senders, party, -1n)
      records.push(
        record(
          party,
          2 * k,
          tx.coinbase ? 'reward' : 'native',
          null,
          party.topOutput?.address as string,
          party.net,
          counterparties,
        ),
      )
    } else if (party.net < 0n) {
      records.push(
        record(party, 2 * k, 'native', party.topInput?.address as string, null, -party.net, listed(receivers, party, 1n)),
      )
    }
    if (party.fee > 0n) records.push(record(party, 2 * k + 1, 'fee', party.topInput?.address as string, null, party.fee, null))
  }
  return records
}

/** Largest movement first (the most received, the most sent), ties in order of appearance. */
function bySize(a: Party, b: Party): number {
  const x = a.net < 0n ? -a.net : a.net
  const y = b.net < 0n ? -b.net : b.net
  return x === y ? a.order - b.order : x > y ? -1 : 1
}

/** Shares `fee` by input share, largest remainders first, so that the shares sum to `fee`. */
function splitFee(fee: bigint, totalIn: bigint, parties: Party[]): void {
  if (fee === 0n || totalIn === 0n) return
  const funders = parties.filter((p) => p.inputs > 0n)
  let left = fee
  const remainders = funders.map((party) => {
    const exact = fee * party.inputs
    party.fee = exact / totalIn
    left -= party.fee
    return { party, remainder: exact % totalIn }
  })
  remainders.sort((a, b) => (a.remainder === b.remainder ? a.party.order - b.party.order : a.remainder > b.remainder ? -1 : 1))
  for (let i = 0; left > 0n; i++, left--) (remainders[i % remainders.length] as (typeof remainders)[number]).party.fee++
}
