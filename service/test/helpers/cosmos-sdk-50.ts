import { createHash } from 'node:crypto'
import { bech32 } from '@scure/base'
import type { CosmosTxResponse } from '../../src/chains/explorers/cosmos.ts'
import type { CosmosEvent } from '../../src/chains/explorers/cosmos-events.ts'

/*
 * Transactions and blocks of a Cosmos SDK 0.50 chain (CometBFT 0.38) with the events its keepers emit,
 * in the order they emit them (x/bank SendCoins: coin_spent, coin_received, transfer, message.sender;
 * DelegateCoins: coin_spent, coin_received; UndelegateCoins: coin_spent, coin_received; MintCoins:
 * coin_received, coinbase), for the local LCD and RPC. What 0.50 changed: `logs` is empty and `raw_log`
 * too; each event of a message carries `msg_index`, after the `message` event baseapp puts first (action,
 * signer as sender, module); the ante handler's (the fee) carry none; every attribute has `index: true`.
 * The block's own events are CometBFT 0.38's `finalize_block_events`, each with `mode` BeginBlock/EndBlock.
 */

/** A module account of the hub: the first 20 bytes of SHA-256 of the module's name, bech32 `cosmos`. */
export const moduleAddress = (name: string) =>
  bech32.encode('cosmos', bech32.toWords(createHash('sha256').update(name).digest().subarray(0, 20)))

export const FEE_COLLECTOR = moduleAddress('fee_collector')
export const DISTRIBUTION = moduleAddress('distribution')
export const BONDED_POOL = moduleAddress('bonded_tokens_pool')
export const NOT_BONDED_POOL = moduleAddress('not_bonded_tokens_pool')
const MINT = moduleAddress('mint')

const event = (type: string, attributes: [string, string][]): CosmosEvent => ({
  type,
  attributes: attributes.map(([key, value]) => ({ key, value, index: true })),
})

const coins = (uatom: bigint) => `${uatom}uatom`

/** SendCoins (SendCoinsFromModuleToAccount and the like too). */
export function bankSend(from: string, to: string, uatom: bigint): CosmosEvent[] {
  return [
    event('coin_spent', [
      ['spender', from],
      ['amount', coins(uatom)],
    ]),
    event('coin_received', [
      ['receiver', to],
      ['amount', coins(uatom)],
    ]),
    event('transfer', [
      ['recipient', to],
      ['sender', from],
      ['amount', coins(uatom)],
    ]),
    event('message', [['sender', from]]),
  ]
}

/** DelegateCoins and UndelegateCoins: the pair alone, no `transfer`. */
function bankPair(from: string, to: string, uatom: bigint): CosmosEvent[] {
  return [
    event('coin_spent', [
      ['spender', from],
      ['amount', coins(uatom)],
    ]),
    event('coin_received', [
      ['receiver', to],
      ['amount', coins(uatom)],
    ]),
  ]
}

/** x/distribution's withdrawDelegationRewards (a hook of every change of a delegation's shares). */
function withdrawRewards(delegator: string, validator: string, uatom: bigint): CosmosEvent[] {
  return [
    ...(uatom > 0n ? bankSend(DISTRIBUTION, delegator, uatom) : []),
    event('withdraw_rewards', [
      ['amount', coins(uatom)],
      ['validator', validator],
      ['delegator', delegator],
    ]),
  ]
}

/** A message: its JSON in the transaction's body, its type URL's module, its signer and the events it emits. */
export type CosmosMessage = { body: Record<string, unknown>; module: string; signer: string; events: CosmosEvent[] }

export function msgSend(from: string, to: string, uatom: bigint): CosmosMessage {
  return {
    body: {
      '@type': '/cosmos.bank.v1beta1.MsgSend',
      from_address: from,
      to_address: to,
      amount: [{ denom: 'uatom', amount: String(uatom) }],
    },
    module: 'bank',
    signer: from,
    events: bankSend(from, to, uatom),
  }
}

/** A first delegation to `validator` (no rewards to withdraw yet): DelegateCoins into the bonded pool. */
export function msgDelegate(delegator: string, validator: string, uatom: bigint): CosmosMessage {
  return {
    body: {
      '@type': '/cosmos.staking.v1beta1.MsgDelegate',
      delegator_address: delegator,
      validator_address: validator,
      amount: { denom: 'uatom', amount: String(uatom) },
    },
    module: 'staking',
    signer: delegator,
    events: [
      ...bankPair(delegator, BONDED_POOL, uatom),
      event('delegate', [
        ['validator', validator],
        ['delegator', delegator],
        ['amount', coins(uatom)],
        ['new_shares', `${uatom}.000000000000000000`],
      ]),
    ],
  }
}

/**
 * An undelegation from a bonded validator: the rewards withdrawn on the way, the stake moved from the
 * bonded pool to the not-bonded pool, where it waits until `completionTime`.
 */
export function msgUndelegate(
  delegator: string,
  validator: string,
  uatom: bigint,
  { rewards, completionTime }: { rewards: bigint; completionTime: string },
): CosmosMessage {
  return {
    body: {
      '@type': '/cosmos.staking.v1beta1.MsgUndelegate',
      delegator_address: delegator,
      validator_address: validator,
      amount: { denom: 'uatom', amount: String(uatom) },
    },
    module: 'staking',
    signer: delegator,
    events: [
      ...withdrawRewards(delegator, validator, rewards),
      ...bankSend(BONDED_POOL, NOT_BONDED_POOL, uatom),
      event('unbond', [
        ['validator', validator],
        ['delegator', delegator],
        ['amount', coins(uatom)],
        ['completion_time', completionTime],
      ]),
    ],
  }
}

export const txHeight = (n: number) => 24_000_000 + n
export const txTime = (n: number) => new Date((1_730_000_000 + n * 6) * 1000).toISOString().replace('.000Z', 'Z')

/** Transaction n (height 24,000,000 + n, hash n in hex) signed by `signer`, who pays `fee` uatom. */
export function cosmosTx({
  n,
  signer,
  messages,
  fee = 2090n,
  code = 0,
}: {
  n: number
  signer: string
  messages: readonly CosmosMessage[]
  fee?: bigint
  code?: number
}): CosmosTxResponse & Record<string, unknown> {
  const ante = [
    ...bankSend(signer, FEE_COLLECTOR, fee),
    event('tx', [
      ['fee', coins(fee)],
      ['fee_payer', signer],
    ]),
    event('tx', [['acc_seq', `${signer}/${n}`]]),
    event('tx', [['signature', Buffer.from(`signature ${n}`).toString('base64')]]),
  ]
  // a failed transaction keeps the ante handler's events only
  const perMessage =
    code !== 0
      ? []
      : messages.flatMap((message, i) =>
          [
            event('message', [
              ['action', message.body['@type'] as string],
              ['sender', message.signer],
              ['module', message.module],
            ]),
            ...message.events,
          ].map((e) => ({ ...e, attributes: [...e.attributes, { key: 'msg_index', value: String(i), index: true }] })),
        )
  return {
    height: String(txHeight(n)),
    txhash: n.toString(16).toUpperCase().padStart(64, '0'),
    codespace: code === 0 ? '' : 'sdk',
    code,
    data: '',
    raw_log: code === 0 ? '' : 'insufficient funds',
    logs: [],
    info: '',
    gas_wanted: '200000',
    gas_used: '120000',
    tx: {
      '@type': '/cosmos.tx.v1beta1.Tx',
      body: {
        messages: messages.map((m) => m.body),
        memo: '',
        timeout_height: '0',
        extension_options: [],
        non_critical_extension_options: [],
      },
      auth_info: {
        signer_infos: [],
        fee: { amount: [{ denom: 'uatom', amount: String(fee) }], gas_limit: '200000', payer: '', granter: '' },
        tip: null,
      },
      signatures: [],
    } as CosmosTxResponse['tx'],
    timestamp: txTime(n),
    events: [...ante, ...perMessage],
  }
}

/** A block's own events: BeginBlock's minting and the fees' way to x/distribution, then `endBlock`'s. */
export function finalizeBlockEvents(endBlock: readonly CosmosEvent[]): CosmosEvent[] {
  const minted = 7_654_321n
  const mode = (m: string) => (e: CosmosEvent) => ({
    ...e,
    attributes: [...e.attributes, { key: 'mode', value: m, index: true }],
  })
  return [
    ...[
      event('coin_received', [
        ['receiver', MINT],
        ['amount', coins(minted)],
      ]),
      event('coinbase', [
        ['minter', MINT],
        ['amount', coins(minted)],
      ]),
      ...bankSend(MINT, FEE_COLLECTOR, minted),
      event('mint', [
        ['bonded_ratio', '0.600000000000000000'],
        ['inflation', '0.100000000000000000'],
        ['annual_provisions', '40000000000000.000000000000000000'],
        ['amount', String(minted)],
      ]),
      ...bankSend(FEE_COLLECTOR, DISTRIBUTION, minted + 2090n),
    ].map(mode('BeginBlock')),
    ...endBlock.map(mode('EndBlock')),
  ]
}

/** x/staking's end-block for one mature unbonding: UndelegateCoins back to the delegator. */
export function completedUnbonding(delegator: string, validator: string, uatom: bigint): CosmosEvent[] {
  return [
    ...bankPair(NOT_BONDED_POOL, delegator, uatom),
    event('complete_unbonding', [
      ['amount', coins(uatom)],
      ['validator', validator],
      ['delegator', delegator],
    ]),
  ]
}
