import { findChain } from '../../config/chains.ts'
import { RECORD_TYPES, type Token } from '../../domain/records.ts'
import {
  applyOverride,
  DEFAULT_SPAM_SETTINGS,
  findImitated,
  findTokenReasons,
  lookAlikeEnds,
  normalizeLabel,
  type ReviewedTokens,
  type SpamReason,
  type SpamSettings,
  type SpamVerdict,
  verdictOf,
} from '../../domain/spam/reasons.ts'
import { isReviewedToken, LISTED_LABELS } from '../../market/known-assets.ts'
import type { SpamOverridesStore } from '../../store/spam-overrides-store.ts'
import type { SpamStore } from '../../store/spam-store.ts'
import type { StoredTransfer } from '../../store/transfers-reader.ts'
import {
  type CursorPosition,
  decodeCursor,
  encodeCursor,
  type HistoryPage,
  type HistoryRequest,
  type WalletHistory,
} from './wallet-history.ts'

/** The reviewed token list (market/known-assets.ts) as the spam reasons read it. */
export const REVIEWED_TOKENS: ReviewedTokens = {
  isListed: (chain, contract) => {
    const info = findChain(chain)
    return info !== undefined && isReviewedToken(info, contract)
  },
  labels: new Set(LISTED_LABELS.map(normalizeLabel)),
}

/** An account's overrides, by `chain:contract`: true marks the token spam, false not spam. */
export type SpamOverrides = ReadonlyMap<string, boolean>
export const NO_OVERRIDES: SpamOverrides = new Map()

/** The overrides of the request's account (none for a request without one), read on the primary at each request. */
export function readSpamOverrides(store: Pick<SpamOverridesStore, 'listOverrides'>) {
  return async (request: { caller?: { accountId: string } | undefined }): Promise<SpamOverrides> => {
    const accountId = request.caller?.accountId
    if (accountId === undefined) return NO_OVERRIDES
    const overrides = await store.listOverrides(accountId)
    return new Map(overrides.map((o) => [`${o.chain}:${o.contractAddress}`, o.spam]))
  }
}

const MAX_MEMOISED_TOKENS = 50_000

const counterpartyOf = (t: StoredTransfer, wallet: string) => (t.from === wallet ? t.to : t.from)

/** The counterparty of a record that address-poisoning looks at: not of a fee, not the wallet itself. */
function poisoningCandidate(t: StoredTransfer, wallet: string): string | undefined {
  const other = counterpartyOf(t, wallet)
  return t.type !== 'fee' && other !== null && other !== wallet ? other : undefined
}

/**
 * The `spam` verdict of each record of a page, seen from the wallet it was asked for (docs/spam.md):
 * token reasons from the token's metadata (memoised by contract and metadata), mass-airdrop and the
 * record reasons from the wallet's own history, read when the page is shaped.
 */
export function createSpamFlags({
  store,
  findTokens,
  reviewed = REVIEWED_TOKENS,
  settings = DEFAULT_SPAM_SETTINGS,
}: {
  store: SpamStore
  /** Token metadata by contract (the wallet-transfers store's, cached there). */
  findTokens: (chain: string, contracts: readonly string[]) => Promise<Map<string, Token>>
  reviewed?: ReviewedTokens
  settings?: SpamSettings
}) {
  const tokenReasons = new Map<string, SpamReason[]>()
  /**
   * The page's counterparties that imitate an address the wallet paid and are not one it paid
   * (address-poisoning): looked up in the paid addresses (migration 0030), the page's ≤ 100
   * counterparties, not the wallet's history.
   */
  async function findPoisoners(chain: string, records: readonly StoredTransfer[], wallet: string): Promise<Set<string>> {
    const fixedPrefix = findChain(chain)?.address.fixedPrefix ?? ''
    const chars = settings.lookAlikeChars
    const counterparties = [...new Set(records.flatMap((t) => poisoningCandidate(t, wallet) ?? []))]
    const { paid, lookAlikes } = await store.findPaidCounterparties(
      chain,
      wallet,
      counterparties.map((address) => ({ address, ...lookAlikeEnds(address, chars, fixedPrefix) })),
    )
    return new Set(
      counterparties.filter(
        (other) => !paid.has(other) && findImitated(other, lookAlikes.get(other) ?? [], chars, fixedPrefix) !== undefined,
      ),
    )
  }

  /**
   * Of these tokens, the ones the wallet received in a transaction in which the sender gave the token
   * to at least `massAirdropRecipients` distinct addresses, from a sender the wallet never sent anything
   * to (mass-airdrop), among its first receipts of each: the receipts read, their recipient counts
   * (kept for the process: a transaction's content does not change), then the senders of those that
   * qualify, if any.
   */
  async function findMassAirdropped(chain: string, wallet: string, contracts: readonly string[]): Promise<Set<string>> {
    const receipts = await store.findFirstReceipts(chain, wallet, contracts)
    const counts = await store.countRecipients(receipts)
    const mass = receipts.filter((_, i) => (counts[i] ?? 0) >= settings.massAirdropRecipients)
    if (mass.length === 0) return new Set()
    const sentTo = await store.findSentTo(chain, wallet, [...new Set(mass.map((r) => r.sender))])
    return new Set(mass.filter((r) => !sentTo.has(r.sender)).map((r) => r.contractAddress))
  }

  function reasonsOfToken(chain: string, contract: string, token: Token | undefined): SpamReason[] {
    const key = `${chain}:${contract}:${token?.name ?? ''}:${token?.symbol ?? ''}`
    let reasons = tokenReasons.get(key)
    if (reasons === undefined) {
      reasons = findTokenReasons(
        { chain, contractAddress: contract, name: token?.name ?? null, symbol: token?.symbol ?? null },
        reviewed,
      )
      if (tokenReasons.size >= MAX_MEMOISED_TOKENS) tokenReasons.clear()
      tokenReasons.set(key, reasons)
    }
    return reasons
  }

  /** The reasons of one chain's records (`records[i]` gets `into[i]`). */
  async function flagChain(chain: string, records: readonly StoredTransfer[], wallet: string, into: SpamReason[][]) {
    const contracts = [...new Set(records.flatMap((t) => (t.contractAddress === null ? [] : [t.contractAddress])))]
    const unlisted = contracts.filter((contract) => !reviewed.isListed(chain, contract))
    const zeroOut = records.filter(
      (t) => t.from === wallet && t.value === '0' && t.contractAddress !== null && RECORD_TYPES[t.type] === 'token',
    )
    const [tokens, airdropped, poisoners, signed] = await Promise.all([
      findTokens(chain, unlisted),
      findMassAirdropped(chain, wallet, unlisted),
      findPoisoners(chain, records, wallet),
      store.findSigned(chain, wallet, zeroOut),
    ])
    records.forEach((t, i) => {
      const reasons = into[i] as SpamReason[]
      const contract = t.contractAddress
      if (contract !== null && unlisted.includes(contract)) {
        reasons.push(...reasonsOfToken(chain, contract, tokens.get(contract)))
        if (airdropped.has(contract)) reasons.push('mass-airdrop')
      }
      const other = poisoningCandidate(t, wallet)
      if (other !== undefined && poisoners.has(other)) reasons.push('address-poisoning')
      if (zeroOut.includes(t) && !signed.has(`${t.blockNumber}:${t.txIndex}`)) reasons.push('zero-value-transfer-from')
    })
  }

  return {
    /**
     * The token verdicts of a wallet's holdings on one chain, by contract (`/balances`): the token
     * reasons only; an override of the token wins.
     */
    async flagTokens(
      chain: string,
      wallet: string,
      contracts: readonly string[],
      overrides: SpamOverrides = NO_OVERRIDES,
    ): Promise<Map<string, SpamVerdict>> {
      const unlisted = contracts.filter((contract) => !reviewed.isListed(chain, contract))
      const [tokens, airdropped] = await Promise.all([findTokens(chain, unlisted), findMassAirdropped(chain, wallet, unlisted)])
      return new Map(
        contracts.map((contract) => {
          const reasons = unlisted.includes(contract) ? [...reasonsOfToken(chain, contract, tokens.get(contract))] : []
          if (airdropped.has(contract)) reasons.push('mass-airdrop')
          return [contract, applyOverride(verdictOf(reasons), overrides.get(`${chain}:${contract}`))]
        }),
      )
    },

    /** One verdict per record; an override of the record's token wins. */
    async flag(
      records: readonly StoredTransfer[],
      wallet: string,
      overrides: SpamOverrides = NO_OVERRIDES,
    ): Promise<SpamVerdict[]> {
      const reasons = records.map((): SpamReason[] => [])
      const byChain = new Map<string, number[]>()
      for (const [i, t] of records.entries()) byChain.set(t.chain, [...(byChain.get(t.chain) ?? []), i])
      await Promise.all(
        [...byChain].map(async ([chain, indexes]) => {
          const into: SpamReason[][] = indexes.map((i) => reasons[i] as SpamReason[])
          await flagChain(
            chain,
            indexes.map((i) => records[i] as StoredTransfer),
            wallet,
            into,
          )
        }),
      )
      return records.map((t, i) =>
        applyOverride(
          verdictOf(reasons[i] as SpamReason[]),
          t.contractAddress === null ? undefined : overrides.get(`${t.chain}:${t.contractAddress}`),
        ),
      )
    },
  }
}

export type SpamFlags = ReturnType<typeof createSpamFlags>

/** A page with each record's spam verdict (`verdicts[i]` is `transfers[i]`'s). */
export type FlaggedPage = HistoryPage & { verdicts: SpamVerdict[] }

const positionOf = (t: StoredTransfer): CursorPosition => ({ blockNumber: t.blockNumber, txIndex: t.txIndex, seq: t.seq })

/**
 * Reads a page of history with the spam verdict of each record; with `excludeSpam`, the flagged ones
 * left out and pages read on until `limit` unflagged records are found or the history ends. The
 * cursor then resumes, per chain, after the last record examined before the page's end (a flagged
 * record past a page's last one is examined again on the next page). `request.queryHash` must
 * cover `excludeSpam`: the cursor is bound to it.
 */
export async function readFlaggedPage(
  history: WalletHistory,
  request: HistoryRequest,
  flag: (records: readonly StoredTransfer[]) => Promise<SpamVerdict[]>,
  { excludeSpam, cursorKey }: { excludeSpam: boolean; cursorKey: Uint8Array },
): Promise<FlaggedPage> {
  const first = await history.readPage(request)
  const firstVerdicts = await flag(first.transfers)
  if (!excludeSpam) return { ...first, verdicts: firstVerdicts }

  const positions =
    request.cursor === undefined ? {} : { ...decodeCursor(request.cursor, request.queryHash, cursorKey).positions }
  const transfers: StoredTransfer[] = []
  const verdicts: SpamVerdict[] = []
  let page = first
  let pageVerdicts = firstVerdicts
  let hasMore = false
  for (;;) {
    for (const [i, t] of page.transfers.entries()) {
      const verdict = pageVerdicts[i] as SpamVerdict
      if (!verdict.flagged && transfers.length === request.limit) {
        hasMore = true
        break
      }
      positions[t.chain] = positionOf(t)
      if (verdict.flagged) continue
      transfers.push(t)
      verdicts.push(verdict)
    }
    if (hasMore || !page.hasMore || page.cursor === null) break
    page = await history.readPage({ ...request, cursor: page.cursor })
    pageVerdicts = await flag(page.transfers)
  }
  return {
    transfers,
    verdicts,
    unavailableChains: first.unavailableChains,
    cursor: hasMore
      ? encodeCursor({ query: request.queryHash, upperBlocks: { ...first.upperBlocks }, positions }, cursorKey)
      : null,
    hasMore,
    upperBlocks: first.upperBlocks,
  }
}
