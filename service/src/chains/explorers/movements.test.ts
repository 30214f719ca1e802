import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { addTo, pairChanges, toTransfer, touches, txIndexFromHash } from './movements.ts'

/**
 * The explorer adapters' shared pieces. pairChanges() is checked on the lamport changes of 19 recorded
 * Solana mainnet transactions (staketaxcsv's fixtures, test/fixtures/staketaxcsv/PROVENANCE.md): each
 * account's pre/post balances, the fee included, turned into movements that add up to every change.
 */

const FETCH_TX = new URL('../../../test/fixtures/staketaxcsv/SOL/fetch_tx/', import.meta.url)

type SolanaTx = {
  result: {
    meta: { preBalances: number[]; postBalances: number[] }
    transaction: { message: { accountKeys: (string | { pubkey: string })[] } }
  }
}

const recorded = readdirSync(FETCH_TX).map((name) => {
  const { result } = JSON.parse(readFileSync(new URL(name, FETCH_TX), 'utf8')) as SolanaTx
  const keys = result.transaction.message.accountKeys.map((key) => (typeof key === 'string' ? key : key.pubkey))
  return keys.map((party, i) => ({
    party,
    delta: BigInt(result.meta.postBalances[i] ?? 0) - BigInt(result.meta.preBalances[i] ?? 0),
  }))
})

/** Each party's net change made by `moves`. */
function netOf(moves: readonly { from: string | null; to: string | null; value: bigint }[]) {
  const net = new Map<string, bigint>()
  for (const move of moves) {
    if (move.from !== null) addTo(net, move.from, -move.value)
    if (move.to !== null) addTo(net, move.to, move.value)
  }
  return net
}

describe('pairChanges()', () => {
  test('on recorded Solana transactions: the movements add up to every account’s change, each one positive', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(19)
    for (const changes of recorded) {
      const moves = pairChanges(changes)
      const net = netOf(moves)
      for (const { party, delta } of changes) expect(net.get(party) ?? 0n).toBe(delta)
      expect(moves.every((move) => move.value > 0n && move.from !== move.to)).toBe(true)
    }
  })

  test('what the fee payer loses beyond what others gain vanishes (to null), as a fee burnt', () => {
    const withFee = recorded.filter((changes) => changes.reduce((sum, c) => sum + c.delta, 0n) < 0n)
    expect(withFee.length).toBeGreaterThan(0)
    for (const changes of withFee) {
      const vanished = pairChanges(changes).filter((move) => move.to === null)
      expect(vanished.reduce((sum, move) => sum + move.value, 0n)).toBe(-changes.reduce((sum, c) => sum + c.delta, 0n))
    }
  })

  test('losers pay gainers in the order given; value that appears comes from null', () => {
    expect(
      pairChanges([
        { party: 'a', delta: -5n },
        { party: 'b', delta: 3n },
        { party: 'c', delta: -1n },
        { party: 'd', delta: 4n },
        { party: 'e', delta: 2n },
      ]),
    ).toEqual([
      { from: 'a', to: 'b', value: 3n },
      { from: 'a', to: 'd', value: 2n },
      { from: 'c', to: 'd', value: 1n },
      { from: null, to: 'd', value: 1n },
      { from: null, to: 'e', value: 2n },
    ])
    expect(pairChanges([{ party: 'a', delta: 0n }])).toEqual([])
  })
})

test('toTransfer(): a coin movement has no batch index, a token’s is 0; the place is the one given', () => {
  const at = { blockNumber: 7, txIndex: 3, txHash: 'h' }
  const coin = toTransfer(at, 2, { type: 'native', from: 'a', to: 'b', value: 5n, contractAddress: null })
  expect(coin).toMatchObject({ blockNumber: 7, txIndex: 3, seq: 2, txHash: 'h', batchIndex: null, tokenId: null, logIndex: null })
  expect(toTransfer(at, 4, { type: 'spl', from: 'a', to: 'b', value: 5n, contractAddress: 'mint' }).batchIndex).toBe(0)
})

test('txIndexFromHash(): the same 31-bit index for the same hash, different ones for different hashes', () => {
  // the recorded transactions' signatures, from their file names (wrapper-<signature>.json)
  const hashes = readdirSync(FETCH_TX).map((name) => name.replace(/^wrapper-|\.json$/g, ''))
  const indexes = hashes.map(txIndexFromHash)
  expect(hashes.map(txIndexFromHash)).toEqual(indexes)
  expect(indexes.every((index) => Number.isInteger(index) && index >= 0 && index < 2 ** 31)).toBe(true)
  expect(new Set(indexes).size).toBe(hashes.length)
})

test('touches(): a record sent or received by the address', () => {
  const ofA = touches('a')
  expect([ofA({ from: 'a', to: 'b' }), ofA({ from: null, to: 'a' }), ofA({ from: 'b', to: null })]).toEqual([true, true, false])
})
