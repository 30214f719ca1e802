import type { OnDemand } from '../../domain/on-demand.ts'
import { DEFAULT_SPAM_SETTINGS, type SpamSettings } from '../../domain/spam/reasons.ts'
import type { Pricer } from '../../market/pricer.ts'
import { type BalancesStore, createBalancesStore } from '../../store/balances-store.ts'
import { type ChainStatesStore, createChainStatesStore } from '../../store/chain-states-store.ts'
import type { Queryable } from '../../store/db.ts'
import { createOutputsStore, type OutputsStore } from '../../store/outputs-store.ts'
import type { ReadScope } from '../../store/read-pools.ts'
import { createRecipientCounts, createSpamStore, type SpamStore } from '../../store/spam-store.ts'
import { createTransactionFactsStore, type TransactionFactsStore } from '../../store/transaction-facts-store.ts'
import {
  createReaderMemory,
  createTransfersReader,
  type HistoryState,
  type TransfersReader,
} from '../../store/transfers-reader.ts'
import type { RequestContext } from '../http/request-hooks.ts'
import { createBalanceMemory } from './balance-memo.ts'
import { createDerivedAddresses, createHdWallets, type HdWallets } from './hd-wallets.ts'
import { createSpamFlags, type SpamFlags } from './spam-flags.ts'
import { createWalletBalances, type WalletBalances } from './wallet-balances.ts'
import { createDateBlocksMemory, createWalletHistory } from './wallet-history.ts'
import { createWalletReconciliation, type WalletReconciliation } from './wallet-reconciliation.ts'
import { createWalletRecords, type WalletRecords } from './wallet-records.ts'
import { createWalletTransactions, type WalletTransactions } from './wallet-transactions.ts'

/** The indexed data's stores over one read scope's `db`. */
export type ReadStores = {
  chainStates: ChainStatesStore
  walletTransfers: TransfersReader
  balances: BalancesStore
  outputs: OutputsStore
  spam: SpamStore
  transactionFacts: TransactionFactsStore
}

/**
 * The read stores over a read scope's `db`, made per scope (closures over it), sharing what the
 * transfers reader keeps for the process (its prepared statements, token metadata) and the spam store's
 * recipient counts. The chains' heads
 * come from `primary`. `prepare`: the page statements are prepared (WDS_PREPARED_STATEMENTS).
 */
export function readStoresOf(primary: Queryable, { prepare = false }: { prepare?: boolean } = {}) {
  const memory = createReaderMemory(prepare)
  const recipientCounts = createRecipientCounts()
  return (db: Queryable): ReadStores => ({
    chainStates: createChainStatesStore(db, primary),
    walletTransfers: createTransfersReader(db, { memory }),
    balances: createBalancesStore(db),
    outputs: createOutputsStore(db),
    spam: createSpamStore(db, { recipientCounts }),
    transactionFacts: createTransactionFactsStore(db),
  })
}

/** The services the data routes call, over one read scope. */
export type WalletServices = {
  chainStates: ChainStatesStore
  records: WalletRecords
  transactions: WalletTransactions
  hdWallets: HdWallets
  balances: WalletBalances
  reconciliation: WalletReconciliation
}

/** The wallet services of a request's read scope: `context.read((scope) => wallets(context, scope).records…)`. */
export type WalletsIn = (context: RequestContext, scope: ReadScope) => WalletServices

/**
 * The chains' history states (indexed range, history indexes, epoch), which every wallet read asks
 * for, held in memory while the chain-state notifications are followed (migration 0023): a change
 * drops them when its notification arrives, and they are used only after the barrier on the
 * notification connection has shown every change committed before the request (the one the key
 * cache waits for, shared by the requests arriving meanwhile). Not followed (not yet, or the
 * connection dropped): read each time. A read that raced a change is not kept. A request that reads
 * a replica reads its states there (they match its rows), never from here.
 *
 * `caughtUp(since)`: whether every change committed before `since` (performance.now()) has been heard.
 */
export function createHistoryStatesCache(caughtUp: (since: number) => Promise<boolean>) {
  let states: HistoryState[] | undefined
  let trusted = false
  let generation = 0

  return {
    /**
     * The chains' history states for a read in `scope` through `store` (the scope's reader), by a
     * request that began at `since` (performance.now(); its barrier is measured from then).
     */
    async list(
      store: Pick<TransfersReader, 'listHistoryStates'>,
      scope: Pick<ReadScope, 'replica'>,
      since: number,
    ): Promise<HistoryState[]> {
      if (scope.replica) return store.listHistoryStates()
      const cached = trusted ? states : undefined
      if (cached !== undefined && (await caughtUp(since)) && states === cached) return cached
      const started = generation
      const read = await store.listHistoryStates()
      if (trusted && generation === started && !scope.replica) states = read
      return read
    },
    changed(): void {
      generation++
      states = undefined
    },
    /** Whether notifications are followed: when not, nothing cached is used (and it is dropped). */
    setTrusted(value: boolean): void {
      generation++
      trusted = value
      states = undefined
    },
  }
}

export type HistoryStatesCache = ReturnType<typeof createHistoryStatesCache>

/**
 * What the wallet services keep for the process, shared by those of every read scope: the chains'
 * history states (with `caughtUp`, the auth-change barrier they wait for), date bounds, balance sums,
 * extended keys' derived addresses (the recipient counts are the read stores', readStoresOf).
 */
export function createWalletMemory(caughtUp: (since: number) => Promise<boolean>) {
  return {
    historyStates: createHistoryStatesCache(caughtUp),
    dateBlocks: createDateBlocksMemory(),
    balances: createBalanceMemory(),
    derivedAddresses: createDerivedAddresses(),
  }
}

export type WalletMemory = ReturnType<typeof createWalletMemory>

export type WalletDeps = {
  /** Where a scope's read stores are made (looked up at each scope: a test counts a store's reads by replacing it). */
  stores: { readStores: (db: Queryable) => ReadStores }
  /** The spam reasons' thresholds. */
  spamSettings?: Partial<SpamSettings> | undefined
  /** Verdicts for every scope (bench:spam's that flag nothing); unset: computed over the scope's stores (spam-flags.ts). */
  spamFlags?: SpamFlags | undefined
  memory: WalletMemory
  pricer: Pricer
  /** Balances before a chain's indexed range and explorer syncs, asked of the chains' sources. */
  onDemand: OnDemand
  /** Signs cursors (deriveCursorKey of the server secret). */
  cursorKey: Uint8Array
  /** BIP 44's gap limit for extended keys. */
  gapLimit: number
}

/**
 * The wallet services of one request (`context`) reading in `scope`: every store they read is the
 * scope's, every cache the process's (`deps.memory`). Cheap: closures over what is passed in.
 */
export function createWalletServices(deps: WalletDeps, context: RequestContext, scope: ReadScope): WalletServices {
  const { memory, pricer, cursorKey } = deps
  const stores = deps.stores.readStores(scope.db)
  const { walletTransfers: reader, balances } = stores
  const onDemand = readingItsWrites(deps.onDemand, context)
  const listHistoryStates = () => memory.historyStates.list(reader, scope, context.startedAt)
  const spam =
    deps.spamFlags ??
    createSpamFlags({
      store: stores.spam,
      findTokens: (chain, contracts) => reader.findTokens(chain, contracts),
      settings: { ...DEFAULT_SPAM_SETTINGS, ...deps.spamSettings },
    })
  const hdWallets = createHdWallets({
    outputs: stores.outputs,
    history: reader,
    listHistoryStates,
    derived: memory.derivedAddresses,
    pricer,
    gapLimit: deps.gapLimit,
    cursorKey,
  })
  const history = createWalletHistory({ store: reader, cursorKey, scope, listHistoryStates, dateBlocksMemory: memory.dateBlocks })
  const facts = stores.transactionFacts
  return {
    chainStates: stores.chainStates,
    records: createWalletRecords({ store: reader, history, pricer, onDemand, cursorKey, scope, spam }),
    transactions: createWalletTransactions({
      store: reader,
      facts,
      pricer,
      onDemand,
      hdWallets,
      cursorKey,
      history,
      scope,
      spam,
      recipients: stores.spam,
    }),
    hdWallets,
    balances: createWalletBalances({
      balances,
      history: reader,
      onDemand,
      pricer,
      hdWallets,
      scope,
      listHistoryStates,
      memory: { balances: memory.balances, dateBlocks: memory.dateBlocks },
      spam,
    }),
    reconciliation: createWalletReconciliation({ balances, history: reader, listHistoryStates, onDemand }),
  }
}

/** The wallet services of every read scope, over `deps`. */
export function createWalletsIn(deps: WalletDeps): WalletsIn {
  return (context, scope) => createWalletServices(deps, context, scope)
}

/**
 * `onDemand` whose calls, once settled, count `context`'s request as begun anew: what they wrote (an
 * explorer wallet's rows, its chain's state) is then read back, not the chains' states held from
 * before, which the barrier the request's key waited for would otherwise vouch for.
 */
function readingItsWrites(onDemand: OnDemand, context: Pick<RequestContext, 'measureFromNow'>): OnDemand {
  const settled =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args)
      } finally {
        context.measureFromNow()
      }
    }
  return {
    openingBalances: settled((...args) => onDemand.openingBalances(...args)),
    syncWallet: settled((...args) => onDemand.syncWallet(...args)),
    readBalances: settled((...args) => onDemand.readBalances(...args)),
    readNodeBalances: settled((...args) => onDemand.readNodeBalances(...args)),
  }
}
