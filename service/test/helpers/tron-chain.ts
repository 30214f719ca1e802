import { createHash } from 'node:crypto'
import type { NodeBlock, NodeTransaction, NodeTransactionInfo } from '../../src/chains/tron/node-types.ts'
import { TRON_GENESIS_BLOCK_IDS } from '../../src/chains/tron/tron-source.ts'
import { tronAddressFromHex, tronAddressToEvmHex } from '../../src/config/addresses/tron.ts'

/**
 * A scripted Tron chain in the exact shapes a java-tron node's HTTP API writes (hex `41…` addresses in
 * transactions, 20-byte hex in logs, protobuf defaults left out), with the state of every account after
 * each block, so that a test server can answer `/wallet/getaccount` and `balanceOf` as the node would
 * at any head. Amounts are bigints, written as bare JSON numbers.
 */

export type Trc20State = { name: string; symbol: string; decimals: number; balances: Map<string, bigint> }
export type AccountState = { balance: bigint; frozenV2: bigint; assets: Map<string, bigint> }
export type ChainState = { accounts: Map<string, AccountState>; trc20: Map<string, Trc20State> }

export type ScriptedBlock = { block: NodeBlock; infos: NodeTransactionInfo[]; state: ChainState }

const sha = (text: string) => createHash('sha256').update(text).digest('hex')
/** A deterministic `T…` address named by `label`. */
export const addressOf = (label: string) => tronAddressFromHex(`41${sha(`address:${label}`).slice(0, 40)}`)
const hexOf = (address: string) => `41${tronAddressToEvmHex(address)}`
const word = (value: bigint | string) =>
  (typeof value === 'bigint' ? value.toString(16) : tronAddressToEvmHex(value)).padStart(64, '0')
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const utf8Hex = (text: string) => Buffer.from(text, 'utf8').toString('hex')

function cloneState(state: ChainState): ChainState {
  return {
    accounts: new Map([...state.accounts].map(([a, s]) => [a, { ...s, assets: new Map(s.assets) }])),
    trc20: new Map([...state.trc20].map(([a, t]) => [a, { ...t, balances: new Map(t.balances) }])),
  }
}

/** One scripted transaction: what it does to the state and how the node writes it. */
export type ScriptTx =
  | { kind: 'trx'; from: string; to: string; amount: bigint; fee?: bigint }
  | { kind: 'trc10'; from: string; to: string; token: string; amount: bigint; fee?: bigint }
  | {
      kind: 'trc20'
      from: string
      contract: string
      to: string
      amount: bigint
      fee?: bigint
      failed?: boolean
      /** Who signs and pays: a `transferFrom(from, to, amount)` call (anyone may move 0), not `from`'s `transfer`. */
      spender?: string
    }
  | {
      /** A contract call carrying TRX, whose contract pays some of it on, in TRX and TRC-10 (internal transactions). */
      kind: 'call'
      from: string
      contract: string
      callValue: bigint
      internal: { to: string; amount: bigint; token?: string; rejected?: boolean }[]
      fee?: bigint
      failed?: boolean
    }
  | { kind: 'freeze'; owner: string; amount: bigint; fee?: bigint }
  | { kind: 'unfreeze'; owner: string; amount: bigint; fee?: bigint }
  | { kind: 'vote'; owner: string; fee?: bigint }
  | { kind: 'withdrawReward'; owner: string; amount: bigint; fee?: bigint }

export class ScriptedTronChain {
  readonly blocks: ScriptedBlock[] = []
  readonly assets = new Map<string, { id: string; name: string; abbr: string; precision?: number }>()
  private nonce = 0

  constructor(
    genesis: ChainState,
    readonly startTimeMs = Date.UTC(2024, 0, 1),
    genesisId: string = TRON_GENESIS_BLOCK_IDS.mainnet,
  ) {
    this.blocks.push({
      block: {
        blockID: genesisId,
        block_header: {
          raw_data: { timestamp: startTimeMs, parentHash: '957dc2d350daecc7bb6a38f3938ebde0a0c1cedafe15f0edae4256a2907449f6' },
        },
      },
      infos: [],
      state: cloneState(genesis),
    })
  }

  get head(): number {
    return this.blocks.length - 1
  }

  /** A copy of the chain up to `height`, to build a fork on. */
  forkAt(height: number, salt: string): ScriptedTronChain {
    const fork = new ScriptedTronChain(this.blocks[0]?.state as ChainState, this.startTimeMs)
    fork.blocks.splice(0, fork.blocks.length, ...this.blocks.slice(0, height + 1))
    for (const [id, asset] of this.assets) fork.assets.set(id, asset)
    fork.nonce = this.nonce + 1_000_000
    fork.salt = salt
    return fork
  }

  private salt = ''

  addBlock(txs: readonly ScriptTx[]): ScriptedBlock {
    const parent = this.blocks.at(-1) as ScriptedBlock
    const number = this.blocks.length
    const state = cloneState(parent.state)
    const timestamp = this.startTimeMs + number * 3_000
    const transactions: NodeTransaction[] = []
    const infos: NodeTransactionInfo[] = []
    for (const tx of txs) {
      const { transaction, info } = this.apply(tx, state, number, timestamp)
      transactions.push(transaction)
      infos.push(info)
    }
    const digest = sha(`${parent.block.blockID}:${this.salt}:${transactions.map((t) => t.txID).join(',')}`)
    const blockID = `${number.toString(16).padStart(16, '0')}${digest.slice(16)}`
    const block = {
      blockID,
      block_header: {
        raw_data: {
          number,
          txTrieRoot: digest,
          witness_address: hexOf(addressOf('witness')),
          parentHash: parent.block.blockID,
          version: 30,
          timestamp,
        },
        witness_signature: sha(`sig:${blockID}`),
      },
      ...(transactions.length === 0 ? {} : { transactions }),
    } as unknown as NodeBlock
    const scripted = { block, infos, state }
    this.blocks.push(scripted)
    return scripted
  }

  private apply(tx: ScriptTx, state: ChainState, blockNumber: number, timestamp: number) {
    const account = (address: string) => {
      let found = state.accounts.get(address)
      if (found === undefined) {
        found = { balance: 0n, frozenV2: 0n, assets: new Map() }
        state.accounts.set(address, found)
      }
      return found
    }
    const move = (from: string, to: string, amount: bigint, token?: string) => {
      if (token === undefined) {
        account(from).balance -= amount
        account(to).balance += amount
      } else {
        account(from).assets.set(token, (account(from).assets.get(token) ?? 0n) - amount)
        account(to).assets.set(token, (account(to).assets.get(token) ?? 0n) + amount)
      }
    }
    const owner =
      tx.kind === 'trc20' && tx.spender !== undefined
        ? tx.spender
        : tx.kind === 'trx' || tx.kind === 'trc10' || tx.kind === 'trc20' || tx.kind === 'call'
          ? tx.from
          : tx.owner
    const fee = tx.fee ?? 0n
    const failed = 'failed' in tx && tx.failed === true
    account(owner).balance -= fee
    const txID = sha(`tx:${this.salt}:${this.nonce++}:${JSON.stringify(tx, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`)
    let type: string
    let value: Record<string, unknown>
    const info: Record<string, unknown> & { id: string } = { id: txID, blockNumber, blockTimeStamp: timestamp }
    if (fee !== 0n) info.fee = fee
    const receipt: Record<string, unknown> = {}
    switch (tx.kind) {
      case 'trx':
        type = 'TransferContract'
        value = { amount: tx.amount, owner_address: hexOf(tx.from), to_address: hexOf(tx.to) }
        move(tx.from, tx.to, tx.amount)
        receipt.net_usage = 268
        break
      case 'trc10':
        type = 'TransferAssetContract'
        value = { amount: tx.amount, asset_name: utf8Hex(tx.token), owner_address: hexOf(tx.from), to_address: hexOf(tx.to) }
        move(tx.from, tx.to, tx.amount, tx.token)
        receipt.net_usage = 283
        break
      case 'trc20': {
        type = 'TriggerSmartContract'
        value = {
          data:
            tx.spender === undefined
              ? `a9059cbb${word(tx.to)}${word(tx.amount)}`
              : `23b872dd${word(tx.from)}${word(tx.to)}${word(tx.amount)}`,
          owner_address: hexOf(owner),
          contract_address: hexOf(tx.contract),
        }
        receipt.energy_usage_total = 29631
        receipt.energy_fee = fee
        info.contract_address = hexOf(tx.contract)
        if (failed) {
          receipt.result = 'REVERT'
          info.result = 'FAILED'
          info.resMessage = utf8Hex('REVERT opcode executed')
          break
        }
        receipt.result = 'SUCCESS'
        const token = state.trc20.get(tx.contract) as Trc20State
        token.balances.set(tx.from, (token.balances.get(tx.from) ?? 0n) - tx.amount)
        token.balances.set(tx.to, (token.balances.get(tx.to) ?? 0n) + tx.amount)
        info.contractResult = [word(1n)]
        info.log = [
          {
            address: tronAddressToEvmHex(tx.contract),
            topics: [TRANSFER_TOPIC, word(tx.from), word(tx.to)],
            data: word(tx.amount),
          },
        ]
        break
      }
      case 'call': {
        type = 'TriggerSmartContract'
        value = { data: 'd0e30db0', owner_address: hexOf(tx.from), contract_address: hexOf(tx.contract) }
        if (tx.callValue !== 0n) value.call_value = tx.callValue
        receipt.energy_usage_total = 52000
        receipt.energy_fee = fee
        receipt.result = failed ? 'REVERT' : 'SUCCESS'
        if (failed) info.result = 'FAILED'
        else move(tx.from, tx.contract, tx.callValue)
        info.internal_transactions = tx.internal.map((internal, i) => {
          const rejected = failed || internal.rejected === true
          if (!rejected) move(tx.contract, internal.to, internal.amount, internal.token)
          return {
            hash: sha(`${txID}:internal:${i}`),
            caller_address: hexOf(tx.contract),
            transferTo_address: hexOf(internal.to),
            callValueInfo: [
              internal.token === undefined
                ? { callValue: internal.amount }
                : { tokenId: internal.token, callValue: internal.amount },
            ],
            note: utf8Hex('call'),
            ...(rejected ? { rejected: true } : {}),
          }
        })
        break
      }
      case 'freeze':
        type = 'FreezeBalanceV2Contract'
        value = { owner_address: hexOf(tx.owner), frozen_balance: tx.amount }
        account(tx.owner).balance -= tx.amount
        account(tx.owner).frozenV2 += tx.amount
        break
      case 'unfreeze':
        // simplified: the unstaked TRX back on the balance at once (java-tron keeps it in unfrozenV2 for 14 days)
        type = 'UnfreezeBalanceV2Contract'
        value = { owner_address: hexOf(tx.owner), unfreeze_balance: tx.amount }
        account(tx.owner).balance += tx.amount
        account(tx.owner).frozenV2 -= tx.amount
        break
      case 'vote':
        type = 'VoteWitnessContract'
        value = { owner_address: hexOf(tx.owner), votes: [{ vote_address: hexOf(addressOf('witness')), vote_count: 1 }] }
        break
      case 'withdrawReward':
        type = 'WithdrawBalanceContract'
        value = { owner_address: hexOf(tx.owner) }
        account(tx.owner).balance += tx.amount
        info.withdraw_amount = tx.amount
        break
    }
    if (Object.keys(receipt).length > 0) info.receipt = receipt
    const transaction: NodeTransaction = {
      ret: [{ contractRet: failed ? 'REVERT' : 'SUCCESS' }],
      signature: [sha(`signature:${txID}`) + sha(txID).slice(0, 66)],
      txID,
      raw_data: {
        contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
        ref_block_bytes: '0000',
        ref_block_hash: sha('ref').slice(0, 16),
        expiration: timestamp + 60_000,
        timestamp: timestamp - 1_000,
      },
    } as NodeTransaction
    return { transaction, info: info as unknown as NodeTransactionInfo }
  }
}

/** JSON as java-tron writes it: bigint amounts as bare numbers (beyond 2^53 too). */
export function toNodeJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `__bigint__${v}` : v)).replace(/"__bigint__(-?\d+)"/g, '$1')
}

/** An account as `/wallet/getaccount` (visible) writes it, or `{}` when it does not exist. */
export function accountAnswer(state: ChainState, address: string): Record<string, unknown> {
  const account = state.accounts.get(address)
  if (account === undefined) return {}
  const assets = [...account.assets].filter(([, v]) => v !== 0n)
  return {
    address,
    ...(account.balance === 0n ? {} : { balance: account.balance }),
    create_time: 1_700_000_000_000,
    ...(account.frozenV2 === 0n ? {} : { frozenV2: [{ amount: account.frozenV2 }, { type: 'ENERGY' }, { type: 'TRON_POWER' }] }),
    ...(assets.length === 0 ? {} : { assetV2: assets.map(([key, value]) => ({ key, value })) }),
    account_resource: { energy_window_size: 28_800_000 },
  }
}
