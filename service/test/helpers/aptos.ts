import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { APT_COIN, type AptosActivity, type AptosTransaction } from '../../src/chains/explorers/aptos.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local Aptos fullnode REST and Indexer GraphQL for tests and benchmarks. Only documentation
 * examples exist for Aptos (GetBlock's, in fixtures/getblock-docs): the ledger info, a failed mainnet
 * transaction whose gas a fee payer paid, an abridged mainnet swap. No Indexer GraphQL answer was
 * recorded anywhere: `fungible_asset_activities` rows are generated in the indexer's shape, as are
 * other transactions, in the documented REST shape.
 */

type Example = { response?: unknown; response_unparsed?: string }
const examples: { methods: Record<string, Example> } = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/getblock-docs/aptos-apt.examples.json'), 'utf8'),
)
/** The documented ledger info (`GET /`). */
export const APTOS_LEDGER_INFO = examples.methods.apt_v1?.response as { block_height: string; ledger_version: string }
/** The documented failed mainnet transaction whose gas a fee payer paid (version 3556737308). */
export const APTOS_FAILED_SPONSORED = examples.methods.apt_v1_transactions_by_hash_transaction_hash?.response as AptosTransaction
/** The documented `blocks/by_version` answer for it. */
export const APTOS_FAILED_BLOCK = examples.methods.apt_v1_blocks_by_version_version?.response as {
  block_height: string
  first_version: string
}
// the documented account transactions list is cut inside its events: closing the list reads it (the file is unchanged)
/** The documented swap by 0xbf92…a52f. */
export const APTOS_SWAP = (
  JSON.parse(
    (examples.methods.apt_v1_accounts_account_hash_transactions?.response_unparsed ?? '').replace(
      /\},\s*"timestamp": "1760643255618178"/,
      '}], "timestamp": "1760643255618178"',
    ),
  ) as AptosTransaction[]
)[0] as AptosTransaction

/** A 0x-64-hex address from a number. */
export const aptosAddress = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}`
export const APT = 100_000_000n

/** What moved in a transaction: the owner's signed amount of an asset (a coin type, or a fungible asset if `v2`). */
export type AptosMove = { owner: string; asset: string; amount: bigint; v2?: boolean }

/** A user transaction in the documented REST shape: gas × 100 octas, a FeeStatement with its storage refund. */
export function aptosUserTx(
  version: number,
  sender: string,
  { gas = 12, success = true, refund = 0 }: { gas?: number; success?: boolean; refund?: number } = {},
): AptosTransaction {
  return {
    version: String(version),
    hash: `0x${version.toString(16).padStart(64, 'e')}`,
    type: 'user_transaction',
    success,
    gas_used: String(gas),
    gas_unit_price: '100',
    sender,
    timestamp: String(BigInt(1_760_000_000 + (version % 1_000_000)) * 1_000_000n),
    signature: { type: 'ed25519_signature' },
    events: [
      {
        type: '0x1::transaction_fee::FeeStatement',
        data: { storage_fee_refund_octas: String(refund) },
      },
    ],
  }
}

function activity(version: string, index: number, block: number, m: AptosMove, success = true): AptosActivity {
  return {
    transaction_version: version,
    event_index: index,
    owner_address: m.owner,
    asset_type: m.asset,
    amount: String(m.amount < 0n ? -m.amount : m.amount),
    type: m.v2
      ? `0x1::fungible_asset::${m.amount < 0n ? 'Withdraw' : 'Deposit'}`
      : `0x1::coin::${m.amount < 0n ? 'WithdrawEvent' : 'DepositEvent'}`,
    is_gas_fee: false,
    gas_fee_payer_address: null,
    is_transaction_success: success,
    block_height: block,
    token_standard: m.v2 ? 'v2' : 'v1',
  }
}

/** The indexer's synthetic gas row: owned by the sender, naming a fee payer when there is one. */
function gasActivity(tx: AptosTransaction, block: number): AptosActivity {
  return {
    transaction_version: tx.version,
    event_index: -1,
    owner_address: tx.sender as string,
    asset_type: APT_COIN,
    amount: String(BigInt(tx.gas_used) * BigInt(tx.gas_unit_price ?? 0)),
    type: '0x1::aptos_coin::GasFeeEvent',
    is_gas_fee: true,
    gas_fee_payer_address: tx.signature?.fee_payer_address ?? null,
    is_transaction_success: tx.success,
    block_height: block,
  }
}

/** Hasura answers numeric columns as JSON numbers: written out raw, beyond 2^53 too. */
const rawBalances = (rows: readonly { asset_type: string; amount: bigint }[]) =>
  `{"data":{"current_fungible_asset_balances":[${rows
    .map((r) => `{"asset_type":${JSON.stringify(r.asset_type)},"amount":${r.amount}}`)
    .join(',')}]}}`

type Tx = { tx: AptosTransaction; block: number; activities: AptosActivity[] }

/**
 * The fullnode (`/` the documented ledger info, `/transactions/by_version/{v}`, the `0x1::coin::balance`
 * view from `aptBalance`) and the indexer at `/graphql` (`processor_status` at `indexed`, and 3 more
 * for the fungible asset processor; `account_transactions` oldest first after `after` up to `upTo`,
 * `limit` rows; `fungible_asset_activities` of versions with `offset`/`limit`; metadata from
 * `metadata`; balances from `balances`) over the transactions added.
 */
export function aptosChain({
  indexed: initiallyIndexed,
  metadata = {},
  aptBalance = () => '0',
  balances = () => [],
}: {
  /** The account transactions processor's last version. */
  indexed: number
  metadata?: Record<string, { name: string; symbol: string; decimals: number }>
  aptBalance?: (owner: string) => string
  balances?: (owner: string) => readonly { asset_type: string; amount: bigint }[]
}) {
  const txs: Tx[] = []
  const byVersion = new Map<string, Tx>()
  let touchingCache: Map<string, Tx[]> | undefined
  let indexed = initiallyIndexed

  /** The transactions in which an address moved something or paid gas, oldest first. */
  function touching(address: string): Tx[] {
    if (touchingCache === undefined) {
      touchingCache = new Map()
      const sorted = [...txs].sort((a, b) => (BigInt(a.tx.version) < BigInt(b.tx.version) ? -1 : 1))
      for (const t of sorted) {
        const parties = new Set(t.activities.flatMap((a) => [a.owner_address, a.gas_fee_payer_address]))
        for (const party of parties) {
          if (party === null || party === undefined) continue
          const list = touchingCache.get(party) ?? []
          list.push(t)
          touchingCache.set(party, list)
        }
      }
    }
    return touchingCache.get(address) ?? []
  }

  return {
    /** The processors' last version (the account transactions processor's; the fungible asset processor is 3 ahead). */
    get indexed() {
      return indexed
    },
    set indexed(version: number) {
      indexed = version
    },
    /** A transaction in `block` with its gas row and the activities of `moves`. */
    add(tx: AptosTransaction, block: number, moves: readonly AptosMove[]) {
      const t = {
        tx,
        block,
        activities: [gasActivity(tx, block), ...moves.map((m, i) => activity(tx.version, i, block, m, tx.success))],
      }
      txs.push(t)
      byVersion.set(tx.version, t)
      touchingCache = undefined
    },
    hashOf: (version: number) => byVersion.get(String(version))?.tx.hash,

    answer(call: ExplorerCall): ExplorerAnswer {
      if (call.method === 'GET' && call.path === '/') return { body: APTOS_LEDGER_INFO }
      const version = /^\/transactions\/by_version\/(\d+)$/.exec(call.path)
      if (version !== null) {
        const t = byVersion.get(version[1] as string)
        return t === undefined
          ? { status: 404, body: { message: 'Transaction not found', error_code: 'transaction_not_found' } }
          : { body: t.tx }
      }
      if (call.path === '/view') {
        const [owner] = (call.body as { arguments: string[] }).arguments
        return { body: [aptBalance(owner ?? '')] }
      }
      if (call.path !== '/graphql') return { status: 404, body: { message: 'not found' } }
      const { operationName, variables: v } = call.body as {
        operationName: string
        variables: {
          address: string
          after: string
          upTo: string
          limit: number
          versions: string[]
          offset: number
          assetTypes: string[]
        }
      }
      switch (operationName) {
        case 'ProcessorStatus':
          return {
            body: {
              data: {
                processor_status: [
                  { processor: 'account_transactions_processor', last_success_version: indexed },
                  { processor: 'fungible_asset_processor', last_success_version: indexed + 3 },
                ],
              },
            },
          }
        case 'AccountTransactions': {
          const rows = touching(v.address)
            .filter((t) => BigInt(t.tx.version) > BigInt(v.after) && BigInt(t.tx.version) <= BigInt(v.upTo))
            .slice(0, v.limit)
          return { body: { data: { account_transactions: rows.map((t) => ({ transaction_version: Number(t.tx.version) })) } } }
        }
        case 'Activities': {
          const wanted = new Set(v.versions.map(String))
          const rows = txs.filter((t) => wanted.has(t.tx.version)).flatMap((t) => t.activities)
          return { body: { data: { fungible_asset_activities: rows.slice(v.offset, v.offset + v.limit) } } }
        }
        case 'AssetMetadata':
          return {
            body: {
              data: {
                fungible_asset_metadata: v.assetTypes.flatMap((type) =>
                  metadata[type] === undefined ? [] : [{ asset_type: type, ...metadata[type] }],
                ),
              },
            },
          }
        case 'Balances':
          return { body: null, raw: rawBalances(balances(v.address)) }
        default:
          return { body: { errors: [{ message: `unknown operation ${operationName}` }] } }
      }
    },
  }
}
