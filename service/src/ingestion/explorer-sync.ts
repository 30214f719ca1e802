import type { ExplorerSource } from '../chains/explorers/explorer-source.ts'
import type { OnDemand, WalletBalances } from '../domain/on-demand.ts'
import { isRecordType } from '../domain/records.ts'
import { InternalError, WdsError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import type { ExplorerWalletsStore } from '../store/explorer-wallets-store.ts'

/** The explorer source of a chain, if it has one configured. */
export type ExplorerFinder = (chain: string) => Promise<ExplorerSource | undefined>

export type ExplorerSyncOptions = {
  store: ExplorerWalletsStore
  findExplorer: ExplorerFinder
  logger?: Logger | undefined
  /** How long one request may spend reading an explorer before it answers `upstream_error`. */
  budgetMs?: number
  /** A wallet read this recently is not asked of the explorer again. */
  freshForMs?: number
}

const DEFAULT_BUDGET_MS = 25_000
const DEFAULT_FRESH_FOR_MS = 15_000

/**
 * The on-demand reads of "Explorer API" chains: a wallet's history is read from the explorer page by
 * page into the store (each page committed with the position after it, so that a read cut short by
 * the request budget goes on where it stopped on the next request), and only what is newer than the
 * stored position is read later. Concurrent requests for one wallet share one read.
 */
export function createExplorerSync({
  store,
  findExplorer,
  logger,
  budgetMs = DEFAULT_BUDGET_MS,
  freshForMs = DEFAULT_FRESH_FOR_MS,
}: ExplorerSyncOptions): Pick<OnDemand, 'syncWallet' | 'readBalances'> {
  const opened = new Map<string, Promise<void>>()
  const running = new Map<string, Promise<void>>()

  async function sourceOf(chain: string): Promise<ExplorerSource> {
    const source = await findExplorer(chain)
    if (source === undefined)
      throw new WdsError('chain_unavailable', `${chain} has no explorer configured, or no adapter for it yet`, { param: 'chain' })
    let open = opened.get(chain)
    if (open === undefined) {
      open = store.openChain(chain)
      open.catch(() => opened.delete(chain))
      opened.set(chain, open)
    }
    await open
    return source
  }

  /** Runs `work` against the request's deadline; the explorer's failure is recorded for the status page. */
  async function asking<T>(chain: string, deadline: number, what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(work(), deadline, `${chain}: the explorer did not answer ${what} within the request's budget`)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      await store.recordError(chain, message).catch(() => {})
      logger?.warn({ chain, err: message }, 'explorer read failed')
      if (error instanceof WdsError && error.code === 'upstream_error') throw error
      throw new WdsError('upstream_error', `${chain}: the explorer did not answer ${what}`, { cause: error })
    }
  }

  async function sync(chain: string, address: string): Promise<void> {
    const source = await sourceOf(chain)
    const wallet = await store.findWallet(chain, address)
    if (wallet?.complete === true && wallet.syncedAt !== null && Date.now() - wallet.syncedAt.getTime() < freshForMs) return
    const deadline = Date.now() + budgetMs
    const head = await asking(chain, deadline, 'its head', () => source.getHead())
    await store.recordHead(chain, head)
    const pages = source.readHistory(address, wallet?.position ?? undefined)[Symbol.asyncIterator]()
    let records = 0
    for (;;) {
      const next = await asking(chain, deadline, `the history of ${address}`, () => pages.next())
      if (next.done === true) return
      const page = next.value
      await store.savePage(chain, address, page)
      records += page.blocks.reduce((n, block) => n + block.transfers.length, 0)
      if (!page.complete && Date.now() > deadline) {
        await pages.return?.()
        throw new WdsError(
          'upstream_error',
          `${chain}: the history of ${address} is still being read from the explorer (${records} records so far); ask again to go on`,
          { headers: { 'retry-after': '1' } },
        )
      }
    }
  }

  return {
    async syncWallet(chain, address) {
      const key = `${chain}\n${address}`
      let run = running.get(key)
      if (run === undefined) {
        run = sync(chain, address).finally(() => running.delete(key))
        running.set(key, run)
      }
      await run
    },

    async readBalances(chain, address): Promise<WalletBalances> {
      const source = await sourceOf(chain)
      const answer = await asking(chain, Date.now() + budgetMs, `the balances of ${address}`, () => source.readBalances(address))
      await store.saveTokens(chain, answer.tokens)
      return {
        asOf: { blockNumber: answer.head.number, timestamp: new Date(answer.head.timestamp * 1000) },
        balances: answer.balances.map((b) => {
          if (!isRecordType(b.type)) throw new InternalError(`${chain}: the adapter gave an unknown record type ${b.type}`)
          return { contractAddress: b.contractAddress, type: b.type, amount: b.amount }
        }),
      }
    },
  }
}

function withDeadline<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WdsError('upstream_error', message)), Math.max(0, deadline - Date.now()))
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
