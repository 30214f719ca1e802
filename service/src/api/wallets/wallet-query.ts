import {
  type AddressFormat,
  CHAINS,
  type ChainInfo,
  findChain,
  type HdWallet,
  matchesAddressFormat,
  sourceVariable,
} from '../../config/chains.ts'
import type { OnDemand } from '../../domain/on-demand.ts'
import { DAY_MS } from '../../lib/dates.ts'
import { type ErrorCode, WdsError } from '../../lib/errors.ts'
import type { ReadRouting } from './wallet-history.ts'

/** SPEC 8: fromDate and toDate at most 365 days apart. */
export const MAX_DATE_RANGE_DAYS = 365

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/i

/** Whether y-m-d is a day of the calendar (no 2024-02-30, which Date would roll into March). */
function isCalendarDate(y: number, m: number, d: number): boolean {
  const instant = new Date(Date.UTC(y, m - 1, d))
  return instant.getUTCFullYear() === y && instant.getUTCMonth() === m - 1 && instant.getUTCDate() === d
}

/** A date parameter: a calendar date (UTC) or a date-time with its offset. */
export type DateParam = { instant: Date; dateOnly: boolean }

export function parseDateParam(value: string, param: string): DateParam {
  const date = DATE.exec(value)
  if (date !== null) {
    const [, y, m, d] = date.map(Number) as [number, number, number, number]
    if (isCalendarDate(y, m, d)) return { instant: new Date(Date.UTC(y, m - 1, d)), dateOnly: true }
  } else {
    const parts = DATE_TIME.exec(value)
    if (parts !== null) {
      const field = (index: number) => Number(parts[index] ?? 0)
      const [y, m, d, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map(field) as number[]
      // every field in its range: no T24:00, no minute 60, no leap second, no offset past ±23:59
      const inRange =
        isCalendarDate(y as number, m as number, d as number) &&
        (hour as number) <= 23 &&
        (minute as number) <= 59 &&
        (second as number) <= 59 &&
        (offsetHours as number) <= 23 &&
        (offsetMinutes as number) <= 59
      const ms = Date.parse(value)
      if (inRange && !Number.isNaN(ms)) return { instant: new Date(ms), dateOnly: false }
    }
  }
  throw new WdsError(
    'invalid_parameter',
    `${param} must be an ISO 8601 date (2025-01-31) or date-time (2025-01-31T12:00:00Z), got "${value}"`,
    { param },
  )
}

/** Today's UTC calendar date, YYYY-MM-DD. */
export function today(): string {
  return new Date().toISOString().slice(0, 10)
}

/** A calendar date YYYY-MM-DD (a UTC day), not in the future unless `allowFuture`. */
export function parseDay(value: string, param: string, { allowFuture = false } = {}): string {
  const instant = new Date(`${value}T00:00:00Z`)
  if (!DATE.test(value) || Number.isNaN(instant.getTime()) || instant.toISOString().slice(0, 10) !== value) {
    throw new WdsError('invalid_parameter', `${param} must be a calendar date YYYY-MM-DD, got "${value}"`, { param })
  }
  if (!allowFuture && value > today()) throw new WdsError('invalid_parameter', `${param} ${value} is in the future`, { param })
  return value
}

/**
 * fromDate/toDate as [from, toExclusive): a date-only toDate includes its whole day. The two may be at
 * most 365 days apart, and fromDate may not be after toDate.
 */
export function parseDateRange(fromDate: string | undefined, toDate: string | undefined) {
  const from = fromDate === undefined ? undefined : parseDateParam(fromDate, 'fromDate')
  const to = toDate === undefined ? undefined : parseDateParam(toDate, 'toDate')
  if (from !== undefined && to !== undefined) {
    if (from.instant > to.instant) {
      throw new WdsError('invalid_parameter', `fromDate (${fromDate}) is after toDate (${toDate})`, { param: 'fromDate' })
    }
    if (to.instant.getTime() - from.instant.getTime() > MAX_DATE_RANGE_DAYS * DAY_MS) {
      throw new WdsError(
        'date_range_too_large',
        `fromDate and toDate may be at most ${MAX_DATE_RANGE_DAYS} days apart; ask for the history a year at a time`,
        { param: 'toDate' },
      )
    }
  }
  const toDateExclusive = to === undefined ? undefined : new Date(to.instant.getTime() + (to.dateOnly ? DAY_MS : 1))
  return { fromDate: from?.instant, toDateExclusive }
}

export function checkBlockRange(fromBlock: number | undefined, toBlock: number | undefined): void {
  if (fromBlock !== undefined && toBlock !== undefined && fromBlock > toBlock) {
    throw new WdsError('invalid_parameter', `fromBlock (${fromBlock}) is after toBlock (${toBlock})`, { param: 'fromBlock' })
  }
}

/** The registry entry of a chain named by the caller, or 400 unknown_chain. */
export function getChainParam(slug: string): ChainInfo {
  const chain = findChain(slug)
  if (chain === undefined) {
    throw new WdsError('unknown_chain', `unknown chain "${slug}"; GET /v1/status/chains lists the 29 chains`, { param: 'chain' })
  }
  return chain
}

/** The address in its canonical form for the first of `chains` it is an address of, or 400 invalid_address. */
export function normalizeAddress(address: string, chains: readonly ChainInfo[], param = 'address'): string {
  // the first format that reads it: an all-chains request's EVM address is not tried as the other families' too
  let canonical: string | undefined
  for (const chain of chains) {
    canonical = chain.address.canonical(address)
    if (canonical !== undefined) break
  }
  if (canonical === undefined) {
    const [only] = chains
    const expected =
      chains.length === 1 && only !== undefined
        ? `an address of ${only.name} (${only.address.name}, e.g. ${only.address.example})`
        : 'an address of a supported chain'
    throw new WdsError('invalid_address', `${param} "${address}" is not ${expected}`, { param })
  }
  return canonical
}

/**
 * Which chains this deployment can serve: those given a source, and those whose chain family this
 * build implements (chains/sources.ts, passed in by main/). A chain is served when it is both.
 */
export type ChainAvailability = { configured: ReadonlySet<string>; implemented: ReadonlySet<string> }

export function isServed(chain: ChainInfo, availability: ChainAvailability): boolean {
  return availability.configured.has(chain.slug) && availability.implemented.has(chain.slug)
}

/**
 * The chains an all-chains request reads: those served whose address format matches the address, in
 * registry order.
 */
export function chainsForAddress(address: string, availability: ChainAvailability): ChainInfo[] {
  return CHAINS.filter((chain) => isServed(chain, availability) && matchesAddressFormat(chain, address))
}

/**
 * All-chains mode: the address formats that read the address (`evm`, `move`, `bitcoin` …), in
 * registry order, whether or not a chain of the format is served here. A typo shows: `0x123` is read
 * as `move` only (Aptos and Sui accept short hex), never as `evm`.
 */
export function addressReadAs(address: string): string[] {
  return [...new Set(CHAINS.filter((chain) => matchesAddressFormat(chain, address)).map((chain) => chain.address.id))]
}

export type UnavailableChain = { chain: string; code: 'chain_unavailable'; detail: string }

/**
 * The parameters every wallet list page's cursor is bound to beside its endpoint and wallet (hashQuery):
 * its range, direction, pricing and spam filter (`excludeSpam` only when set, as cursors made without it have it).
 */
export function listQueryFields(request: {
  fromBlock?: number | undefined
  toBlock?: number | undefined
  fromDate?: Date | undefined
  toDateExclusive?: Date | undefined
  direction: string
  includePrices: boolean
  currency: string
  excludeSpam?: boolean | undefined
}) {
  return {
    fromBlock: request.fromBlock,
    toBlock: request.toBlock,
    fromDate: request.fromDate?.toISOString(),
    toDate: request.toDateExclusive?.toISOString(),
    direction: request.direction,
    includePrices: request.includePrices,
    currency: request.currency,
    ...(request.excludeSpam === true ? { excludeSpam: true } : {}),
  }
}

/** Refuses (400 naming atBlock) a block outside `chain`'s indexed range. */
export function checkAtBlock(chain: ChainInfo, atBlock: number, range: { indexedFrom: number; indexedBlock: number }): void {
  if (atBlock > range.indexedBlock) {
    throw new WdsError('invalid_parameter', `atBlock ${atBlock} is above ${chain.name}'s indexed block ${range.indexedBlock}`, {
      param: 'atBlock',
    })
  }
  if (atBlock < range.indexedFrom) {
    throw new WdsError(
      'invalid_parameter',
      `atBlock ${atBlock} is before ${chain.name}'s indexed range (from block ${range.indexedFrom})`,
      { param: 'atBlock' },
    )
  }
}

/** The codes of one chain's failures: not served yet, its source failing, a bound it cannot serve. */
const CHAIN_SCOPED_CODES: ReadonlySet<ErrorCode> = new Set(['chain_unavailable', 'upstream_error', 'invalid_parameter'])

/**
 * Whether `error` is one chain's failure, which an all-chains request lists as that chain's and answers
 * without; any other (the database's, a bug) fails the whole request.
 */
export function isChainScoped(error: unknown): error is WdsError {
  return error instanceof WdsError && CHAIN_SCOPED_CODES.has(error.code)
}

/**
 * The head every wallet list page starts with (`/transfers` and friends, `/transactions`): the address,
 * the chain asked or `all`, and in all-chains mode how the address was read, the chains read and those
 * that could not be; the currency when prices were asked for.
 */
export function listPageHead<Unavailable extends { chain: string; code: string; detail: string }>(
  address: string,
  request: {
    named: boolean
    chains: readonly { slug: string }[]
    unservedChains: readonly UnavailableChain[]
    includePrices: boolean
    currency: string
  },
  unavailable: readonly Unavailable[],
) {
  return {
    address,
    chain: request.named ? (request.chains[0]?.slug ?? 'all') : 'all',
    ...(request.named
      ? {}
      : {
          addressReadAs: addressReadAs(address),
          chains: request.chains.map((chain) => chain.slug),
          unavailableChains: [...unavailable, ...request.unservedChains],
        }),
    ...(request.includePrices ? { currency: request.currency } : {}),
  }
}

/**
 * When an all-chains request reads no chain at all, why: each chain of the address's format, with
 * what keeps it from being served. Empty when some chain is read (then the answer speaks for itself).
 */
export function explainNoChains(address: string, availability: ChainAvailability): UnavailableChain[] {
  if (chainsForAddress(address, availability).length > 0) return []
  return CHAINS.filter((chain) => matchesAddressFormat(chain, address)).map((chain) => ({
    chain: chain.slug,
    code: 'chain_unavailable' as const,
    detail: unservedDetail(chain, availability),
  }))
}

/** Why a chain is not served: its family is not implemented, or it has no source here. */
function unservedDetail(chain: ChainInfo, availability: ChainAvailability): string {
  return availability.implemented.has(chain.slug)
    ? `${chain.name} (${chain.slug}) has no configured source on this service (${sourceVariable(chain)})`
    : `${chain.name} (${chain.slug}) is not supported by this version of WDS yet: its chain family (${chain.family}) has no implementation, so it is neither indexed nor served`
}

/** 503 chain_unavailable when the chain asked for by name is not served (no source, or not implemented). */
export function requireConfigured(chain: ChainInfo, availability: ChainAvailability): void {
  if (!isServed(chain, availability)) {
    throw new WdsError('chain_unavailable', unservedDetail(chain, availability), { param: 'chain' })
  }
}

/** A wallet of many addresses (an extended key or descriptor) on the chain named, or else on the first configured chain that reads it. */
export function findHdWallet(
  text: string,
  named: ChainInfo | undefined,
  availability: ChainAvailability,
): { chain: ChainInfo; wallet: HdWallet } | undefined {
  const scope = named === undefined ? CHAINS.filter((chain) => isServed(chain, availability)) : [named]
  for (const chain of scope) {
    const format: AddressFormat = chain.address
    const wallet = format.parseWallet?.(text)
    if (wallet !== undefined) return { chain, wallet }
  }
  return undefined
}

/**
 * What is synced from an explorer is written to the primary and read back at once (and on later
 * pages): a request over an "Explorer API" chain reads from the primary, never from a replica.
 */
export function readOwnWrites(scope: Pick<ReadRouting, 'usePrimary'> | undefined, chains: readonly ChainInfo[]): void {
  if (chains.some((chain) => chain.source === 'explorer')) scope?.usePrimary()
}

/**
 * Before a first page is read, the wallet's history on each "Explorer API" chain among `chains` is
 * brought up to date in the store (onDemand.syncWallet); a chain whose explorer fails is an error
 * when it was named, else it is left out and listed as unavailable.
 */
export async function syncExplorerChains(
  onDemand: OnDemand,
  chains: readonly ChainInfo[],
  address: string,
  named: boolean,
): Promise<{
  chains: ChainInfo[]
  unavailableChains: { chain: string; code: 'upstream_error' | 'chain_unavailable'; detail: string }[]
}> {
  const unavailableChains: { chain: string; code: 'upstream_error' | 'chain_unavailable'; detail: string }[] = []
  const failed = new Set<string>()
  await Promise.all(
    chains
      .filter((chain) => chain.source === 'explorer')
      .map(async (chain) => {
        try {
          await onDemand.syncWallet(chain.slug, chain.address.canonical(address) ?? address)
        } catch (error) {
          if (named || !isChainScoped(error)) throw error
          failed.add(chain.slug)
          unavailableChains.push({
            chain: chain.slug,
            code: error.code === 'chain_unavailable' ? 'chain_unavailable' : 'upstream_error',
            detail: error.message,
          })
        }
      }),
  )
  return { chains: chains.filter((chain) => !failed.has(chain.slug)), unavailableChains }
}

/** A wallet's balances on an "Explorer API" chain: the explorer's answer now (no history of balances). */
export async function readExplorerBalances(
  onDemand: OnDemand,
  chain: ChainInfo,
  address: string,
  at: { block?: number | undefined; date?: unknown },
) {
  if (at.block !== undefined || at.date !== undefined) {
    throw new WdsError(
      'invalid_parameter',
      `${chain.name} balances are read from its explorer now; atBlock and atDate are not available`,
      {
        param: at.block !== undefined ? 'atBlock' : 'atDate',
      },
    )
  }
  const answer = await onDemand.readBalances(chain.slug, chain.address.canonical(address) ?? address)
  return {
    asOf: { chain: chain.slug, blockNumber: answer.asOf.blockNumber, timestamp: answer.asOf.timestamp.toISOString() },
    balances: answer.balances
      .filter((b) => b.amount !== 0n)
      .map((b) => ({ chain, asset: b.contractAddress ?? '', amount: b.amount, type: b.type })),
  }
}
