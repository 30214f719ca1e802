import { type ChainInfo, findChain } from '../../config/chains.ts'
import type { RecordType } from '../../domain/records.ts'
import { SPAM_REASONS, type SpamVerdict } from '../../domain/spam/reasons.ts'
import type { Pricer } from '../../market/pricer.ts'
import type { StoredTransfer } from '../../store/transfers-reader.ts'
import { addFiatValues, pricedAsset } from './fiat-values.ts'
import type { SpamFlags, SpamOverrides } from './spam-flags.ts'
import { assetKey, type Group, type Net, type Wallet } from './transaction-groups.ts'
import { priceTransfers, type TransferRecord } from './transfer-records.ts'

/**
 * The spam verdicts of a request's groups (`verdicts[j]` is `group.records[j]`'s), each group read
 * once: the filter of `excludeSpam` and the shaping of its page share them. A record is judged
 * from the wallet's own address in it (a wallet of many addresses judges each from its own).
 */
export function createGroupFlags(spam: SpamFlags, wallet: Wallet, overrides: SpamOverrides) {
  const verdicts = new Map<Group, SpamVerdict[]>()

  async function flagGroups(groups: readonly Group[]): Promise<SpamVerdict[][]> {
    const unread = groups.filter((group) => !verdicts.has(group))
    const records = unread.flatMap((group) => group.records)
    const byOwner = new Map<string, number[]>()
    for (const [i, t] of records.entries()) {
      const owner = (wallet.owns(t.from) ? t.from : t.to) ?? wallet.id
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), i])
    }
    const found: SpamVerdict[] = []
    await Promise.all(
      [...byOwner].map(async ([owner, indexes]) => {
        const read = await spam.flag(
          indexes.map((i) => records[i] as StoredTransfer),
          owner,
          overrides,
        )
        for (const [j, i] of indexes.entries()) found[i] = read[j] as SpamVerdict
      }),
    )
    let at = 0
    for (const group of unread) {
      verdicts.set(group, found.slice(at, at + group.records.length))
      at += group.records.length
    }
    return groups.map((group) => verdicts.get(group) as SpamVerdict[])
  }

  return {
    flagGroups,
    /** Whether each group is to be listed with `excludeSpam`: its entry is not flagged. */
    async keepUnflagged(groups: readonly Group[]): Promise<boolean[]> {
      const found = await flagGroups(groups)
      return groups.map((group, i) => !entrySpamOf(movementVerdicts(group, found[i] as SpamVerdict[])).flagged)
    },
  }
}

export type GroupFlags = ReturnType<typeof createGroupFlags>

/** The verdicts of a group's movements: all its records' but its fee's (the entry's `fee`). */
export function movementVerdicts(group: Group, verdicts: readonly SpamVerdict[]): SpamVerdict[] {
  const feeAt = group.records.findIndex((t) => t.type === 'fee')
  return verdicts.filter((_, j) => j !== feeAt)
}

/**
 * A transaction's verdict (docs/spam.md): flagged when every movement is, or one is flagged for
 * address-poisoning; its reasons are the union of its movements', `account` when an override decided one.
 */
export function entrySpamOf(movements: readonly SpamVerdict[]): SpamVerdict {
  const flagged =
    movements.length > 0 &&
    (movements.every((v) => v.flagged) || movements.some((v) => v.flagged && v.reasons.includes('address-poisoning')))
  return {
    flagged,
    reasons: SPAM_REASONS.filter((reason) => movements.some((v) => v.reasons.includes(reason))),
    source: movements.some((v) => v.source === 'account') ? 'account' : 'computed',
  }
}

/** Per net line (netOf's order: assets as they first appear), whether a flagged record moved that asset. */
function flaggedLines(group: Group, verdicts: readonly SpamVerdict[]): boolean[] {
  const flagged = new Set(group.records.filter((_, j) => verdicts[j]?.flagged === true).map(assetKey))
  return [...new Set(group.records.map(assetKey))].map((key) => flagged.has(key))
}

/**
 * Prices a page's records and net lines on their day; a flagged record, and a net line of an asset
 * a flagged record moved, are never priced (their fiat fields are null).
 */
export async function priceEntries(
  pricer: Pricer,
  page: {
    entries: readonly { timestamp: string; chain: string }[]
    nets: readonly Net[]
    groups: readonly Group[]
    shaped: readonly TransferRecord[][]
    verdicts: readonly SpamVerdict[][]
  },
  currency: string,
) {
  const { entries, nets, groups, shaped, verdicts } = page
  await priceTransfers(
    pricer,
    shaped.flat(),
    groups.flatMap((group) => group.records),
    currency,
    verdicts.flat(),
  )
  const lines = entries.flatMap((entry, i) => {
    const net = nets[i] as Net
    const flagged = flaggedLines(groups[i] as Group, verdicts[i] as SpamVerdict[])
    return net.lines.map((line, j) => ({ entry, line, type: net.types[j] as RecordType, flagged: flagged[j] === true }))
  })
  await addFiatValues(
    pricer,
    lines.map(({ line }) => line),
    lines.map(({ entry, line, type, flagged }) => ({
      pricedAs: flagged ? undefined : pricedAsset(findChain(entry.chain) as ChainInfo, type, line.contractAddress),
      date: entry.timestamp.slice(0, 10),
      amount: line.tokenDecimals === null ? null : line.value,
    })),
    currency,
  )
}
