import { canonicalMoveAddress } from '../../config/addresses/move.ts'
import type { BlockRef, RecordType, Transfer } from '../../domain/records.ts'
import { UpstreamError } from '../../lib/errors.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import { amountOf } from '../tron/node-types.ts'
import type { ExplorerSource } from './explorer-source.ts'
import { addTo, type Movement, pairChanges, toTransfer, touches } from './movements.ts'
import { createTokenCache, explorerPage, mapConcurrently, tokensMoved } from './pages.ts'

/*
 * Aptos through the Aptos Labs API: its fullnode REST (`/`, the ledger info for the head;
 * `/transactions/by_version/{v}` for a transaction's hash, sender, fee payer, gas and status;
 * `POST /view` `0x1::coin::balance` for APT) and its Indexer GraphQL at `/graphql` beside it
 * (`account_transactions` for the versions touching the account, oldest first from the last one read,
 * 100 a page; `fungible_asset_activities` of those versions for what moved; `fungible_asset_metadata`;
 * `current_fungible_asset_balances`; `processor_status`). The REST API alone lists only the
 * transactions an account sent.
 *
 * Final = committed (AptosBFT commits are final) and processed by both indexer processors read here:
 * versions above the lower of their `last_success_version` are read on a later request.
 */

export const APT_COIN = '0x1::aptos_coin::AptosCoin'
/** APT as a fungible asset (its paired metadata object, `0xa`). */
const APT_FA = canonicalMoveAddress('0xa') as string
const VERSIONS_PER_PAGE = 100
const ROWS_PER_QUERY = 100
const CONCURRENT_TRANSACTIONS = 8
const PROCESSORS = ['account_transactions_processor', 'fungible_asset_processor']

/** A row of the indexer's `fungible_asset_activities`. */
export type AptosActivity = {
  transaction_version: string | number
  event_index: string | number
  owner_address: string | null
  asset_type: string | null
  amount: string | number | null
  type: string
  is_gas_fee: boolean
  gas_fee_payer_address?: string | null
  is_transaction_success: boolean
  block_height: string | number
  token_standard?: string
}

/** The fullnode's transaction (the recorded GetBlock examples' shape; only what is read here). */
export type AptosTransaction = {
  version: string
  hash: string
  type: string
  success: boolean
  gas_used: string
  gas_unit_price?: string
  sender?: string
  /** Microseconds. */
  timestamp: string
  signature?: { type?: string; fee_payer_address?: string }
  events?: { type: string; data?: { storage_fee_refund_octas?: string } }[]
}

const canonical = (address: string) => canonicalMoveAddress(address) ?? address
export const isApt = (assetType: string) => assetType === APT_COIN || canonicalMoveAddress(assetType) === APT_FA
/** A coin type (`0x…::module::Name`, the legacy coin standard) or a fungible asset's metadata address. */
const assetKey = (assetType: string) => (assetType.includes('::') ? assetType : canonical(assetType))
const tokenType = (assetKey: string): RecordType => (assetKey.includes('::') ? 'coin' : 'fa')

/** Withdraw-like events take from their owner, deposit-like ones give; others (frozen…) move nothing. */
function signOf(type: string): -1n | 1n | 0n {
  const name = type.split('::').at(-1) ?? ''
  if (name.includes('Withdraw')) return -1n
  if (name.includes('Deposit')) return 1n
  return 0n
}

/**
 * A transaction's movements, the same whoever asks: its gas (`gas_used × gas_unit_price` less the
 * storage refund of its `FeeStatement`) as `fee` charged to the fee payer (a sponsor, else the
 * sender) — a refund larger than the gas is APT to the payer from no one —; then per asset the
 * withdrawals and deposits of its activities (the indexer's synthetic gas row aside), paired from
 * the owners who lost to those who gained: `native` for APT (as a coin or as the `0xa` fungible
 * asset), `coin` for other coin types, `fa` for other fungible assets. A failed transaction moves
 * only its gas. Each owner's records add up to its activities.
 */
export function transactionMovements(tx: AptosTransaction, activities: readonly AptosActivity[]): Movement[] {
  const movements: Movement[] = []
  if (tx.type === 'user_transaction' && tx.sender !== undefined) {
    const payer = canonical(tx.signature?.fee_payer_address ?? tx.sender)
    const gas = BigInt(tx.gas_used) * BigInt(tx.gas_unit_price ?? '0')
    const refund = BigInt(
      tx.events?.find((e) => e.type === '0x1::transaction_fee::FeeStatement')?.data?.storage_fee_refund_octas ?? '0',
    )
    const net = gas - refund
    if (net > 0n) movements.push({ type: 'fee', from: payer, to: null, value: net, contractAddress: null })
    if (net < 0n) movements.push({ type: 'native', from: null, to: payer, value: -net, contractAddress: null })
  }
  if (!tx.success) return movements
  const byAsset = new Map<string, Map<string, bigint>>()
  for (const activity of activities) {
    if (activity.is_gas_fee || !activity.is_transaction_success) continue
    if (activity.owner_address === null || activity.asset_type === null || activity.amount === null) continue
    const sign = signOf(activity.type)
    if (sign === 0n) continue
    const key = isApt(activity.asset_type) ? '' : assetKey(activity.asset_type)
    const byOwner = byAsset.get(key) ?? new Map<string, bigint>()
    byAsset.set(key, byOwner)
    addTo(byOwner, canonical(activity.owner_address), sign * amountOf(activity.amount))
  }
  for (const [key, byOwner] of [...byAsset].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))) {
    for (const move of pairChanges([...byOwner].map(([party, delta]) => ({ party, delta })))) {
      movements.push({ type: key === '' ? 'native' : tokenType(key), ...move, contractAddress: key === '' ? null : key })
    }
  }
  return movements
}

/** `txIndex`: the version's low 31 bits (versions are consecutive within a block, so they keep its order). */
export const txIndexOfVersion = (version: string | number) => Number(BigInt(version) % 2n ** 31n)

export function walletTransfers(
  tx: AptosTransaction,
  activities: readonly AptosActivity[],
  blockNumber: number,
  address: string,
): Transfer[] {
  const at = { blockNumber, txIndex: txIndexOfVersion(tx.version), txHash: tx.hash }
  return transactionMovements(tx, activities)
    .map((movement, seq) => toTransfer(at, seq, movement))
    .filter(touches(address))
}

/** The version after which to go on (`"0"`: from the start; version 0 is genesis, no account's history). */
type AptosPosition = { after: string }

type GraphQlAnswer<T> = { data?: T; errors?: { message: string }[] }

export function createAptosSource({ http, chain = 'aptos' }: { http: HttpClient; chain?: string }): ExplorerSource {
  /** An indexer query; GraphQL errors in a 200 answer fail the attempt (retried when they say the indexer was busy). */
  const graphql = <T>(operationName: string, query: string, variables: Record<string, unknown>) =>
    http.json<T>({ method: 'POST', path: '/graphql', body: { operationName, query, variables } }, (body, status) => {
      const answer = (body ?? {}) as GraphQlAnswer<T>
      if (status >= 300) return undefined as T
      if (answer.errors !== undefined && answer.errors.length > 0) {
        const message = answer.errors.map((e) => e.message).join('; ')
        const busy = /timeout|too many|rate limit|temporarily/i.test(message)
        throw new UpstreamError(`indexer ${operationName}: ${message}`, {
          failure: 'answer',
          request: `POST /graphql ${operationName}`,
          busy,
          retryable: busy,
        })
      }
      if (answer.data === undefined || answer.data === null)
        throw new UpstreamError(`indexer ${operationName}: the answer has no data`, { failure: 'malformed' })
      return answer.data
    })

  /** The fullnode's ledger info (its index, `/`). */
  const ledger = () =>
    http.json<{ block_height: string; ledger_version: string; ledger_timestamp: string }>({}, (body, status) => {
      const info = body as { block_height?: unknown; ledger_version?: unknown; ledger_timestamp?: unknown } | null
      if (status < 300 && !(typeof info?.block_height === 'string' && typeof info.ledger_timestamp === 'string'))
        throw new UpstreamError('the fullnode answered no ledger info', { failure: 'malformed' })
      return body as { block_height: string; ledger_version: string; ledger_timestamp: string }
    })

  async function head(): Promise<BlockRef> {
    const info = await ledger()
    return {
      number: Number(info.block_height),
      hash: '',
      parentHash: '',
      timestamp: Number(BigInt(info.ledger_timestamp) / 1_000_000n),
    }
  }

  /** The newest version both indexer processors have processed (the fullnode's, if it names neither). */
  async function indexedVersion(): Promise<bigint> {
    const { processor_status: statuses } = await graphql<{
      processor_status: { processor: string; last_success_version: string | number }[]
    }>(
      'ProcessorStatus',
      `query ProcessorStatus($processors: [String!]!) {
        processor_status(where: { processor: { _in: $processors } }) { processor last_success_version }
      }`,
      { processors: PROCESSORS },
    )
    const versions = statuses.filter((s) => PROCESSORS.includes(s.processor)).map((s) => BigInt(s.last_success_version))
    // biome-ignore lint/complexity/useMathMinMax: bigints have no Math.min
    if (versions.length > 0) return versions.reduce((a, b) => (b < a ? b : a))
    return BigInt((await ledger()).ledger_version)
  }

  const accountVersions = async (address: string, after: string, upTo: bigint) =>
    (
      await graphql<{ account_transactions: { transaction_version: string | number }[] }>(
        'AccountTransactions',
        `query AccountTransactions($address: String!, $after: bigint!, $upTo: bigint!, $limit: Int!) {
          account_transactions(
            where: { account_address: { _eq: $address }, transaction_version: { _gt: $after, _lte: $upTo } }
            order_by: { transaction_version: asc }
            limit: $limit
          ) { transaction_version }
        }`,
        { address, after, upTo: upTo.toString(), limit: VERSIONS_PER_PAGE },
      )
    ).account_transactions.map((row) => String(row.transaction_version))

  async function activitiesOf(versions: readonly string[]): Promise<AptosActivity[]> {
    const rows: AptosActivity[] = []
    if (versions.length === 0) return rows
    for (let offset = 0; ; offset += ROWS_PER_QUERY) {
      const { fungible_asset_activities: page } = await graphql<{ fungible_asset_activities: AptosActivity[] }>(
        'Activities',
        `query Activities($versions: [bigint!]!, $offset: Int!, $limit: Int!) {
          fungible_asset_activities(
            where: { transaction_version: { _in: $versions } }
            order_by: [{ transaction_version: asc }, { event_index: asc }]
            offset: $offset
            limit: $limit
          ) {
            transaction_version event_index owner_address asset_type amount type is_gas_fee gas_fee_payer_address
            is_transaction_success block_height token_standard
          }
        }`,
        { versions, offset, limit: ROWS_PER_QUERY },
      )
      rows.push(...page)
      if (page.length < ROWS_PER_QUERY) return rows
    }
  }

  const readTransactions = (versions: readonly string[]) =>
    mapConcurrently(versions, CONCURRENT_TRANSACTIONS, (version) =>
      http.json<AptosTransaction>({ path: `/transactions/by_version/${version}` }),
    )

  const tokensOf = createTokenCache({
    async all(missing) {
      const { fungible_asset_metadata: metadata } = await graphql<{
        fungible_asset_metadata: { asset_type: string; name?: string | null; symbol?: string | null; decimals?: number | null }[]
      }>(
        'AssetMetadata',
        `query AssetMetadata($assetTypes: [String!]!) {
          fungible_asset_metadata(where: { asset_type: { _in: $assetTypes } }) { asset_type name symbol decimals }
        }`,
        { assetTypes: missing },
      )
      return missing.map((key) => {
        const meta = metadata.find((m) => assetKey(m.asset_type) === key)
        return { contractAddress: key, name: meta?.name ?? null, symbol: meta?.symbol ?? null, decimals: meta?.decimals ?? null }
      })
    },
  })

  return {
    chain,
    getHead: head,

    async *readHistory(address, stored) {
      const position: AptosPosition = { after: '0', ...(stored as Partial<AptosPosition> | undefined) }
      const upTo = await indexedVersion()
      for (;;) {
        const versions = await accountVersions(address, position.after, upTo)
        const complete = versions.length < VERSIONS_PER_PAGE
        const activities = await activitiesOf(versions)
        const byVersion = new Map<string, AptosActivity[]>()
        for (const a of activities) {
          const v = String(a.transaction_version)
          byVersion.set(v, [...(byVersion.get(v) ?? []), a])
        }
        // only transactions in which something of the account moved: the others have no record of it
        const moving = versions.filter((v) =>
          (byVersion.get(v) ?? []).some((a) =>
            a.is_gas_fee
              ? canonical(a.gas_fee_payer_address ?? a.owner_address ?? '') === address
              : a.owner_address !== null && canonical(a.owner_address) === address,
          ),
        )
        const txs = await readTransactions(moving)
        const records = txs.map((tx) => {
          const own = byVersion.get(tx.version) ?? []
          const blockNumber = Number(own[0]?.block_height ?? 0)
          return {
            block: { number: blockNumber, hash: '', timestamp: Number(BigInt(tx.timestamp) / 1_000_000n) },
            transfers: walletTransfers(tx, own, blockNumber, address),
          }
        })
        position.after = versions.at(-1) ?? position.after
        yield explorerPage(records, await tokensOf(tokensMoved(records)), { ...position }, complete)
        if (complete) return
      }
    },

    async readBalances(address) {
      const at = await head()
      const [apt] = await http.json<[string | number]>({
        method: 'POST',
        path: '/view',
        body: { function: '0x1::coin::balance', type_arguments: [APT_COIN], arguments: [address] },
      })
      const held = new Map<string, bigint>()
      for (let offset = 0; ; offset += ROWS_PER_QUERY) {
        const { current_fungible_asset_balances: page } = await graphql<{
          current_fungible_asset_balances: { asset_type: string; amount: string | number }[]
        }>(
          'Balances',
          `query Balances($address: String!, $offset: Int!, $limit: Int!) {
            current_fungible_asset_balances(
              where: { owner_address: { _eq: $address } }
              order_by: { asset_type: asc }
              offset: $offset
              limit: $limit
            ) { asset_type amount }
          }`,
          { address, offset, limit: ROWS_PER_QUERY },
        )
        for (const row of page) if (!isApt(row.asset_type)) addTo(held, assetKey(row.asset_type), amountOf(row.amount))
        if (page.length < ROWS_PER_QUERY) break
      }
      const tokens = [...held].filter(([, amount]) => amount > 0n)
      return {
        head: at,
        balances: [
          { contractAddress: null, type: 'native', amount: amountOf(apt) },
          ...tokens.map(([key, amount]) => ({ contractAddress: key, type: tokenType(key), amount })),
        ],
        tokens: await tokensOf(tokens.map(([key]) => key)),
      }
    },
  }
}
