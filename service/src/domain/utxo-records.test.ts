import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { type UtxoRecord, type UtxoTransaction, utxoRecords } from './utxo-records.ts'

const tx = (inputs: [string | null, bigint][], outputs: [string | null, bigint][], coinbase = false): UtxoTransaction => ({
  hash: 'ab'.repeat(32),
  index: 1,
  coinbase,
  inputs: inputs.map(([address, value]) => ({ address, value })),
  outputs: outputs.map(([address, value]) => ({ address, value })),
})

/** A record without the fields every test shares. */
const brief = ({ wallet, seq, type, from, to, value, counterparties }: UtxoRecord) => ({
  wallet,
  seq,
  type,
  from,
  to,
  value,
  counterparties,
})

/** What each wallet's records add up to: in − out − fee. */
function netByWallet(records: UtxoRecord[]): Map<string, bigint> {
  const net = new Map<string, bigint>()
  for (const r of records) net.set(r.wallet, (net.get(r.wallet) ?? 0n) + (r.to === null ? -r.value : r.value))
  return net
}

describe('utxoRecords()', () => {
  test('a payment with change: one out and one fee for the sender, one in for the recipient, change not a movement', () => {
    const records = utxoRecords(
      7,
      tx(
        [['A', 100_000n]],
        [
          ['B', 60_000n],
          ['A', 39_000n],
        ],
      ),
    )
    expect(records.map(brief)).toEqual([
      {
        wallet: 'A',
        seq: 0,
        type: 'native',
        from: 'A',
        to: null,
        value: 60_000n,
        counterparties: [{ address: 'B', value: 60_000n }],
      },
      { wallet: 'A', seq: 1, type: 'fee', from: 'A', to: null, value: 1_000n, counterparties: null },
      {
        wallet: 'B',
        seq: 2,
        type: 'native',
        from: null,
        to: 'B',
        value: 60_000n,
        counterparties: [{ address: 'A', value: 60_000n }],
      },
    ])
    expect(netByWallet(records)).toEqual(
      new Map([
        ['A', -61_000n],
        ['B', 60_000n],
      ]),
    )
  })

  test('two funders share the fee by input share; leftover satoshis go to the largest remainders so the shares sum to the fee', () => {
    // fee 10 split 1:2 → 3.33 and 6.67: floors 3 and 6, the one left to B (remainder 2/3 > 1/3)
    const records = utxoRecords(
      7,
      tx(
        [
          ['A', 100n],
          ['B', 200n],
        ],
        [['C', 290n]],
      ),
    )
    const fees = records.filter((r) => r.type === 'fee').map((r) => [r.wallet, r.value])
    expect(fees).toEqual([
      ['A', 3n],
      ['B', 7n],
    ])
    expect(netByWallet(records)).toEqual(
      new Map([
        ['A', -100n],
        ['B', -200n],
        ['C', 290n],
      ]),
    )
    const received = records.find((r) => r.wallet === 'C')
    // the main sender first: B gave 193 after its fee share, A 97
    expect(received?.counterparties).toEqual([
      { address: 'B', value: 193n },
      { address: 'A', value: 97n },
    ])
  })

  test('a coinbase is a reward with no sender; a zero-value OP_RETURN is no one’s', () => {
    const records = utxoRecords(
      7,
      tx(
        [],
        [
          ['M', 5_000_000_000n],
          [null, 0n],
        ],
        true,
      ),
    )
    expect(records.map(brief)).toEqual([
      { wallet: 'M', seq: 0, type: 'reward', from: null, to: 'M', value: 5_000_000_000n, counterparties: [] },
    ])
  })

  test('value burnt in an OP_RETURN is part of the sender’s out, with no counterparty for it', () => {
    const records = utxoRecords(
      7,
      tx(
        [['A', 1_000n]],
        [
          [null, 400n],
          ['A', 500n],
        ],
      ),
    )
    expect(records.map((r) => [r.type, r.value, r.counterparties])).toEqual([
      ['native', 400n, []],
      ['fee', 100n, null],
    ])
  })

  test('a set of addresses is one wallet: a payment between its own addresses is only its fee', () => {
    const wallet = (address: string) => (address === 'A1' || address === 'A2' ? 'W' : address)
    const internal = utxoRecords(7, tx([['A1', 1_000n]], [['A2', 900n]]), wallet)
    expect(internal.map(brief)).toEqual([
      { wallet: 'W', seq: 1, type: 'fee', from: 'A1', to: null, value: 100n, counterparties: null },
    ])
    const outgoing = utxoRecords(
      7,
      tx(
        [
          ['A1', 1_000n],
          ['A2', 500n],
        ],
        [
          ['X', 1_200n],
          ['A2', 250n],
        ],
      ),
      wallet,
    )
    expect(netByWallet(outgoing)).toEqual(
      new Map([
        ['W', -1_250n],
        ['X', 1_200n],
      ]),
    )
  })

  test("block 850000's transaction of every script type: each wallet's records sum to its balance change, fees to the fee", () => {
    type Output = { scriptpubkey: string; scriptpubkey_address?: string; value: number }
    const esplora = JSON.parse(
      readFileSync(new URL('../../test/fixtures/mempool-esplora/block-850000-every-script-type.json', import.meta.url), 'utf8'),
    ) as { txid: string; fee: number; vin: { prevout: Output }[]; vout: Output[] }
    const owner = (o: Output) => o.scriptpubkey_address ?? (o.scriptpubkey.startsWith('6a') ? null : `script:${o.scriptpubkey}`)
    const records = utxoRecords(850_000, {
      hash: esplora.txid,
      index: 1,
      coinbase: false,
      inputs: esplora.vin.map((i) => ({ address: owner(i.prevout), value: BigInt(i.prevout.value) })),
      outputs: esplora.vout.map((o) => ({ address: owner(o), value: BigInt(o.value) })),
    })
    const fees = records.filter((r) => r.type === 'fee').reduce((sum, r) => sum + r.value, 0n)
    expect(fees).toBe(BigInt(esplora.fee))
    const expected = new Map<string, bigint>()
    for (const i of esplora.vin)
      expected.set(owner(i.prevout) as string, (expected.get(owner(i.prevout) as string) ?? 0n) - BigInt(i.prevout.value))
    for (const o of esplora.vout) {
      const address = owner(o)
      if (address !== null) expected.set(address, (expected.get(address) ?? 0n) + BigInt(o.value))
    }
    expect(netByWallet(records)).toEqual(new Map([...expected].filter(([, net]) => net !== 0n)))
    expect(new Set(records.map((r) => `${r.seq}`)).size).toBe(records.length)
  })
})
