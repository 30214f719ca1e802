import { Readable } from 'node:stream'
import { type ChainInfo, findChain } from '../../config/chains.ts'
import { csvLine } from '../../domain/exports/csv.ts'
import { EXPORT_FORMATS, type ExportFormatName } from '../../domain/exports/formats.ts'
import type { ExportEntry, ExportRecord } from '../../domain/exports/rows.ts'
import type { TransactionsRequest, WalletTransactions } from './wallet-transactions.ts'

/** Transactions read per page of `/transactions` while exporting (its largest page). */
export const EXPORT_PAGE_TRANSACTIONS = 1000

/** One wallet of an export: `/transactions`'s request without the paging and pricing it sets itself. */
export type ExportWallet = Omit<TransactionsRequest, 'limit' | 'cursor' | 'direction' | 'includePrices' | 'currency'>

/** A validated export: one wallet, or the wallets of a portfolio, in one format and currency. */
export type ExportRequest = {
  wallets: readonly ExportWallet[]
  format: ExportFormatName
  currency: string
  /** Spam is left out unless asked for (passed to /transactions as excludeSpam, which applies it once issue 34 reaches it). */
  includeSpam: boolean
}

/** Called with the rows written so far, before they are sent: where the rate limits count them (it may wait, or throw). */
export type ChargeRows = (rows: number) => Promise<void>

type Listed = Awaited<ReturnType<WalletTransactions['listTransactions']>>

/** A page of `/transactions` (WalletTransactions.listTransactions), read in a read scope of the export's request. */
export type ListTransactions = (request: TransactionsRequest) => Promise<Listed>
type Listing = Listed['transactions'][number]
type ListedRecord = Listing['movements'][number]

/** A `/transactions` record as the formats read it: its fiat value and price in the export's currency. */
function exportRecord(r: ListedRecord, currency: string): ExportRecord {
  const fields = r as unknown as Record<string, number | null | undefined>
  const ccy = currency.toLowerCase()
  return {
    id: r.id,
    type: r.type,
    from: r.from,
    to: r.to,
    valueRaw: r.valueRaw,
    asset: r.asset,
    contractAddress: r.contractAddress,
    tokenId: r.tokenId,
    tokenDecimals: r.tokenDecimals,
    direction: r.direction,
    fiatValue: fields[`value_${ccy}`] ?? null,
    fiatPrice: fields[`price_${ccy}`] ?? null,
  }
}

function exportEntry(t: Listing, wallet: string, currency: string): ExportEntry {
  const chain = findChain(t.chain) as ChainInfo
  return {
    id: t.id,
    chain: t.chain,
    chainId: t.chainId,
    chainName: chain.name,
    wallet,
    txHash: t.txHash,
    blockNumber: t.blockNumber,
    timestamp: new Date(t.timestamp),
    category: t.category,
    rule: t.rule,
    initiatedByWallet: t.initiatedByWallet,
    status: t.status === 'failed' ? 'failed' : 'success',
    fee: t.fee === null ? null : exportRecord(t.fee, currency),
    movements: t.movements.map((m) => exportRecord(m, currency)),
  }
}

/**
 * Exports (docs/exports.md): the wallets' transactions read page by page from the transactions
 * service and written as CSV as they come, one chunk per page, so that memory holds one page
 * whatever the history's length. The next page is read only when the client has taken the last
 * (backpressure), and none once it has gone.
 */
export function createWalletExport({ pageSize = EXPORT_PAGE_TRANSACTIONS }: { pageSize?: number } = {}) {
  /** The file's chunks: the header, then each page's rows; `rows` counts the rows written so far. */
  async function* chunks(
    request: ExportRequest,
    listTransactions: ListTransactions,
    progress: { rows: number },
    charge: ChargeRows,
  ): AsyncGenerator<string> {
    const format = EXPORT_FORMATS[request.format]
    const options = { ownAddresses: new Set(request.wallets.map((w) => w.address)), currency: request.currency }
    yield csvLine(format.columns)
    for (const wallet of request.wallets) {
      let cursor: string | undefined
      do {
        const page = await listTransactions({
          ...wallet,
          direction: 'both',
          includePrices: true,
          // spam is left out unless asked for; /transactions applies it once issue 34 reaches it
          excludeSpam: !request.includeSpam,
          currency: request.currency,
          limit: pageSize,
          cursor,
        })
        const rows = page.transactions.flatMap((t) => format.rowsOf(exportEntry(t, wallet.address, request.currency), options))
        progress.rows += rows.length
        await charge(progress.rows)
        // an empty chunk would read as no data and stall the stream
        if (rows.length > 0) yield rows.map(csvLine).join('')
        cursor = page.cursor ?? undefined
      } while (cursor !== undefined)
    }
  }

  return {
    /**
     * The export as a byte stream, its first page already read: a bad request or an unavailable chain
     * is thrown here, before the response starts. Each page is read by `listTransactions`;
     * `progress.rows` counts the rows handed out; `charge` is told of them page by page.
     */
    async open(
      request: ExportRequest,
      listTransactions: ListTransactions,
      charge: ChargeRows = async () => {},
    ): Promise<{ stream: Readable; progress: { rows: number } }> {
      const progress = { rows: 0 }
      const iterator = chunks(request, listTransactions, progress, charge)
      const header = await iterator.next()
      const first = await iterator.next()
      const head = `${header.value ?? ''}${first.done === true ? '' : first.value}`
      return { stream: streamOf(head, first.done === true ? undefined : iterator), progress }
    },
  }
}

/**
 * A readable stream of `head` then the iterator's chunks, each read only when the stream wants more.
 * Destroying the stream (the client left) ends the iterator: no further page is read.
 */
function streamOf(head: string, rest: AsyncGenerator<string> | undefined): Readable {
  let headSent = false
  return new Readable({
    read() {
      if (!headSent) {
        headSent = true
        this.push(head)
        if (rest === undefined) this.push(null)
        return
      }
      ;(rest as AsyncGenerator<string>).next().then(
        (next) => this.push(next.done === true ? null : next.value),
        (error: unknown) => this.destroy(error as Error),
      )
    },
    destroy(error, callback) {
      if (rest === undefined) return callback(error)
      rest.return(undefined).then(
        () => callback(error),
        () => callback(error),
      )
    },
  })
}

export type WalletExport = ReturnType<typeof createWalletExport>
