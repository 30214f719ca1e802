import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { XrpEntry } from '../../src/chains/explorers/xrp.ts'
import { COSMOS_REWARDS, COSMOS_SEND, cosmosLcd, cosmosRpc, loadRecordedCosmosTx } from '../helpers/cosmos-lcd.ts'
import { completionBlock, STAKER, stakingTxs } from '../helpers/cosmos-staking.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../helpers/explorer-app.ts'
import { loadXrplFixture, rippled } from '../helpers/rippled.ts'
import { checkNet, type Entry } from '../helpers/transactions.ts'

/**
 * GET /v1/wallets/{address}/transactions on two "Explorer API" chains through the production path
 * (local upstreams answering with recorded responses, read on demand into the store): Cosmos Hub
 * (staketaxcsv's recorded mainnet send and reward withdrawal; a staker's delegation, undelegation
 * and completed unbonding in SDK 0.50's shapes) and the XRP Ledger (xrpl.js's recorded account_tx
 * and partial payment). Their records come in the shared vocabulary, so the same rules name them.
 */

const REWARDS = COSMOS_REWARDS.hash
const DELEGATOR = COSMOS_REWARDS.delegator

const lcd = cosmosLcd({
  txs: [loadRecordedCosmosTx(COSMOS_SEND.sender, COSMOS_SEND.hash), loadRecordedCosmosTx(DELEGATOR, REWARDS), ...stakingTxs],
  balances: {},
})
const rpc = cosmosRpc({
  blocks: [completionBlock],
})

const partialXrp: XrpEntry = loadXrplFixture('partialPaymentXRP.json')
const accountTx = loadXrplFixture('accountTx.json').result
const CHECKS_WALLET = 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn'
const PAYER = 'rGFuMiw48HdbnrUbkRYuitXTmfrDBNTCnX'
const PAYEE = 'rNNuQMuExCiEjeZ4h9JJnj5PSWypdMXDj4'
const node = rippled({
  head: 70_000_000,
  entries: [{ ...partialXrp, tx_json: { ...partialXrp.tx_json, ledger_index: 22_420_600, date: 600_000_000 }, validated: true }],
})

let app: ExplorerTestApp

/** The entries of a wallet on a chain, each checked to net with its movements; [rule, initiated] each. */
async function rulesOf(address: string, chain: string) {
  const { status, body } = await app.get(`/v1/wallets/${address}/transactions?chain=${chain}`)
  expect(status).toBe(200)
  const entries = body.transactions as Entry[]
  for (const entry of entries) checkNet(entry, address)
  return entries.map((e) => [e.rule.id, e.initiatedByWallet])
}

beforeAll(async () => {
  app = await startExplorerTestApp({
    upstreams: {
      cosmos: { answer: (call) => lcd.answer(call), nodeAnswer: (call) => rpc.answer(call) },
      xrp: {
        answer: (call) => {
          const { method, params } = call.body as { method: string; params: [Record<string, unknown>] }
          if (method === 'account_tx' && params[0].account === CHECKS_WALLET) {
            return {
              body: {
                result: params[0].marker === undefined ? accountTx : { ...accountTx, transactions: [], marker: undefined },
              },
            }
          }
          return node.answer(call) ?? { body: { result: { status: 'error', error: 'unknownCmd' } } }
        },
      },
    },
  })
})

afterAll(() => app?.close())

describe('GET /v1/wallets/{address}/transactions on explorer chains', () => {
  test('Cosmos: the recorded send is a send for its sender and a receive for its receiver', async () => {
    expect(await rulesOf(COSMOS_SEND.sender, 'cosmos')).toEqual([['send.only-out', true]])
    expect(await rulesOf(COSMOS_SEND.receiver, 'cosmos')).toEqual([['receive.only-in', false]])
  })

  test('Cosmos: the recorded reward withdrawal (ATOM and IBC tokens from the distribution module, fee paid)', async () => {
    expect(await rulesOf(DELEGATOR, 'cosmos')).toEqual([['token-receive.only-in', true]])
  })

  test('Cosmos staking: the delegation is a deposit, the completed unbonding a withdrawal, the undelegation its rewards', async () => {
    expect(await rulesOf(STAKER, 'cosmos')).toEqual([
      ['send.only-out', true],
      // the completed unbonding, in a block's own events: nobody's transaction
      ['withdrawal.record', false],
      // the undelegation moves the stake at its completion; in its transaction only the rewards it withdrew come in
      ['receive.only-in', true],
      ['deposit.record', true],
      ['receive.only-in', false],
    ])
  })

  test('XRP: the recorded CheckCreate and DepositPreauth moved only their fee; the partial payment', async () => {
    expect(await rulesOf(CHECKS_WALLET, 'xrp')).toEqual([
      ['fee-only.nothing-moved', true],
      ['fee-only.nothing-moved', true],
    ])
    expect(await rulesOf(PAYER, 'xrp')).toEqual([['send.only-out', true]])
    expect(await rulesOf(PAYEE, 'xrp')).toEqual([['receive.only-in', false]])
  })
})
