import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { type CosmosTxResponse, txMovements } from './cosmos.ts'
import { bankMoves, stakingPools } from './cosmos-events.ts'

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/staketaxcsv/load_tx')
const recorded = (name: string): CosmosTxResponse => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))

describe('cosmos events', () => {
  test("stakingPools() are the staking module's accounts (the hub's, and Celestia's as its recorded MsgDelegate names it)", () => {
    expect([...stakingPools('cosmos')]).toEqual([
      'cosmos1fl48vsnmsdzcv85q5d2q4z5ajdha8yu34mf0eh',
      'cosmos1tygms3xhhs3yv487phx3dw4a95jn7t7lpm470r',
    ])
    expect(stakingPools('celestia').has('celestia1fl48vsnmsdzcv85q5d2q4z5ajdha8yu3y3clr6')).toBe(true)
  })

  test('txMovements() of a recorded MsgDelegate (SDK 0.47 logs, no transfer event): the fee and the delegation, a deposit into the bonded pool', () => {
    const delegator = 'celestia1keardu3hsg6kjj253gmgquu8ml4xuws4wve6zz'
    const tx = recorded(`load_tx-${delegator}-E3771EF7BA92EE3EAC6474656A3AE3103DBCF0EEE5B939854D21A1823A7C517B.json`)
    expect(txMovements(tx, 'utia', stakingPools('celestia'))).toEqual([
      { type: 'fee', from: delegator, to: null, value: 1933n, contractAddress: null },
      {
        type: 'deposit',
        from: delegator,
        to: 'celestia1fl48vsnmsdzcv85q5d2q4z5ajdha8yu3y3clr6',
        value: 1_010_000n,
        contractAddress: null,
      },
    ])
  })

  test('bankMoves() counts a send once (its coin_spent/coin_received pair and its transfer), a mint from nobody, a merged event entry by entry', () => {
    const ev = (type: string, ...pairs: [string, string][]) => ({
      type,
      attributes: pairs.map(([key, value]) => ({ key, value })),
    })
    expect(
      bankMoves([
        ev('coin_received', ['receiver', 'mint'], ['amount', '5uatom']),
        ev('coinbase', ['minter', 'mint'], ['amount', '5uatom']),
        ev('coin_spent', ['spender', 'a'], ['amount', '3uatom,2ibc/X']),
        ev('coin_received', ['receiver', 'b'], ['amount', '3uatom,2ibc/X']),
        ev('transfer', ['recipient', 'b'], ['sender', 'a'], ['amount', '3uatom,2ibc/X']),
        // SDK 0.47 logs: one event of a type, its keys repeated
        ev('coin_spent', ['spender', 'c'], ['amount', '7uatom'], ['spender', 'd'], ['amount', '1uatom']),
        ev('coin_received', ['receiver', 'e'], ['amount', '7uatom'], ['receiver', 'f'], ['amount', '1uatom']),
      ]),
    ).toEqual([
      { from: null, to: 'mint', value: 5n, denom: 'uatom' },
      { from: 'a', to: 'b', value: 3n, denom: 'uatom' },
      { from: 'a', to: 'b', value: 2n, denom: 'ibc/X' },
      { from: 'c', to: 'e', value: 7n, denom: 'uatom' },
      { from: 'd', to: 'f', value: 1n, denom: 'uatom' },
    ])
  })
})
