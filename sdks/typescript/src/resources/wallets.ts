import { type ResolvedOptions, sendRequest, type WithResponse } from '../core.ts'
import { type ExportDestination, type ExportFormat, type ExportResult, streamTo } from '../export.ts'
import type {
  BalanceList,
  Erc20Transfer,
  Erc20TransferList,
  NftTransfer,
  NftTransferList,
  Transfer,
  TransferList,
} from '../models.ts'
import { type PageEnvelope, PagePromise } from '../pagination.ts'
import type { Transaction, TransactionList } from '../transactions.ts'

type DateOrString = string | Date
const day = (value: DateOrString | undefined) => (value instanceof Date ? value.toISOString().slice(0, 10) : value)

export type TransferParams = {
  chain?: string
  fromBlock?: number
  toBlock?: number
  /** YYYY-MM-DD (UTC), or a Date (its UTC day). */
  fromDate?: DateOrString
  toDate?: DateOrString
  asset?: string
  direction?: 'in' | 'out' | 'both'
  includeFees?: boolean
  includePrices?: boolean
  currency?: string
  /** Leave out the records flagged as spam (the service's default is false); the cursor is bound to it. */
  excludeSpam?: boolean
  /** Records per page, 1..1000 (the service's default is 100). */
  limit?: number
  cursor?: string
}

/** The parameters of `/transfers` but `asset` and `includeFees` (an entry always carries its fee). */
export type TransactionParams = Omit<TransferParams, 'asset' | 'includeFees' | 'excludeSpam' | 'limit'> & {
  /** Leave out the transactions flagged as spam (the service's default is false); the cursor is bound to it. */
  excludeSpam?: boolean
  /** Transactions per page, 1..1000 (the service's default is 100); an entry holds all its records. */
  limit?: number
}

export type TokenTransferParams = {
  chain?: string
  contractAddress?: string
  fromDate?: DateOrString
  toDate?: DateOrString
  excludeSpam?: boolean
  limit?: number
  cursor?: string
}

export type BalanceParams = {
  chain?: string
  includePrices?: boolean
  currency?: string
  /** Leave out the tokens flagged as spam. */
  excludeSpam?: boolean
  atBlock?: number
  atDate?: DateOrString
}

export type ExportParams = {
  format: ExportFormat
  /** One chain; unset: every chain the address is valid on. */
  chain?: string
  fromBlock?: number
  toBlock?: number
  /** YYYY-MM-DD (UTC), or a Date (its UTC day); a period spans at most 366 days. */
  fromDate?: DateOrString
  toDate?: DateOrString
  /** The fiat column's currency (the service's default is USD). */
  currency?: string
  /** Include the transactions flagged as spam (the service's default is false). */
  includeSpam?: boolean
}

export class Wallets {
  constructor(private readonly options: ResolvedOptions) {}

  /**
   * A wallet's transfers of every kind, newest first. Await for one page, or iterate over all:
   *
   *   for await (const t of client.wallets.transfers('0xabc…', { chain: 'ethereum' }).iterate()) console.log(t.value)
   */
  transfers(address: string, params: TransferParams = {}): PagePromise<Transfer, TransferList> {
    return this.#list<Transfer, TransferList>(address, 'transfers', {
      ...params,
      fromDate: day(params.fromDate),
      toDate: day(params.toDate),
    })
  }

  /**
   * A wallet's transactions, newest first: one entry per transaction with its category, the rule that
   * named it, its movements (as `transfers` gives them), fee and net change per asset. Pages never
   * split a transaction:
   *
   *   for await (const tx of client.wallets.transactions('0xabc…', { chain: 'ethereum' }).iterate())
   *     console.log(tx.category, tx.rule.id, tx.net)
   */
  transactions(address: string, params: TransactionParams = {}): PagePromise<Transaction, TransactionList> {
    return this.#list<Transaction, TransactionList>(
      address,
      'transactions',
      { ...params, fromDate: day(params.fromDate), toDate: day(params.toDate) },
      (page) => page.transactions,
    )
  }

  /** ERC-20 transfers only, in the token-transfer shape (`tokenSymbol`). */
  erc20Transfers(address: string, params: TokenTransferParams = {}): PagePromise<Erc20Transfer, Erc20TransferList> {
    return this.#list<Erc20Transfer, Erc20TransferList>(address, 'erc20-transfers', {
      ...params,
      fromDate: day(params.fromDate),
      toDate: day(params.toDate),
    })
  }

  /** ERC-721 and ERC-1155 transfers, one record per token moved. */
  nftTransfers(address: string, params: TokenTransferParams = {}): PagePromise<NftTransfer, NftTransferList> {
    return this.#list<NftTransfer, NftTransferList>(address, 'nft-transfers', {
      ...params,
      fromDate: day(params.fromDate),
      toDate: day(params.toDate),
    })
  }

  /**
   * Balances now, or at a block or date:
   *
   *   const { balances } = await client.wallets.balances('0xabc…', { chain: 'ethereum', atDate: '2024-12-31' })
   */
  balances(address: string, params: BalanceParams = {}): Promise<WithResponse<BalanceList>> {
    return sendRequest<BalanceList>(this.options, {
      method: 'GET',
      path: `/v1/wallets/${encodeURIComponent(address)}/balances`,
      query: { ...params, atDate: day(params.atDate) },
      auth: 'key',
      idempotent: true,
    })
  }

  /**
   * A wallet's history as the CSV file a tax tool imports, streamed to a file path or a writable
   * stream as it comes (constant memory, whatever its length):
   *
   *   await client.wallets.export('0xabc…', { format: 'koinly', fromDate: '2025-01-01', toDate: '2025-12-31' }, 'koinly-2025.csv')
   */
  export(address: string, params: ExportParams, destination: ExportDestination): Promise<ExportResult> {
    const spec = {
      method: 'GET',
      path: `/v1/wallets/${encodeURIComponent(address)}/export`,
      query: { ...params, fromDate: day(params.fromDate), toDate: day(params.toDate) },
      auth: 'key',
      idempotent: true,
    } as const
    return streamTo(this.options, spec, destination)
  }

  #list<Item, P extends PageEnvelope>(
    address: string,
    endpoint: string,
    params: Record<string, string | number | boolean | undefined>,
    itemsOf?: (page: P) => readonly Item[],
  ): PagePromise<Item, P> {
    const { cursor, ...query } = params
    const fetchPage = (pageCursor: string | undefined) =>
      sendRequest<P>(this.options, {
        method: 'GET',
        path: `/v1/wallets/${encodeURIComponent(address)}/${endpoint}`,
        query: { ...query, cursor: pageCursor },
        auth: 'key',
        idempotent: true,
      })
    return new PagePromise<Item, P>(fetchPage, cursor === undefined ? undefined : String(cursor), itemsOf)
  }
}
