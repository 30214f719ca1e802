import { remove as removeConfusables } from 'confusables'

/**
 * Why a token or a record is flagged as spam: one documented vocabulary (docs/spam.md). Clients must
 * tolerate reasons added later.
 */
export const SPAM_REASONS = [
  'impersonates-listed-token',
  'lure-in-metadata',
  'mass-airdrop',
  'address-poisoning',
  'zero-value-transfer-from',
] as const
export type SpamReason = (typeof SPAM_REASONS)[number]

/** Where a verdict comes from: computed from indexed data, or an account's override. */
export type SpamSource = 'computed' | 'account'
export type SpamVerdict = { flagged: boolean; reasons: SpamReason[]; source: SpamSource }

export const NOT_SPAM: SpamVerdict = Object.freeze({ flagged: false, reasons: [], source: 'computed' }) as SpamVerdict

/** The thresholds of the reasons: the defaults are the documented ones; tests shorten the look-alike. */
export type SpamSettings = {
  /** Characters compared at each end of an address (after 0x) for address-poisoning. */
  lookAlikeChars: number
  /** The fewest distinct recipients one sender gives a token in one transaction for mass-airdrop. */
  massAirdropRecipients: number
}
export const DEFAULT_SPAM_SETTINGS: SpamSettings = Object.freeze({ lookAlikeChars: 4, massAirdropRecipients: 20 })

/** The reviewed token list as the reasons need it: which contracts are on it, and the names and symbols it has. */
export type ReviewedTokens = {
  isListed(chain: string, contractAddress: string): boolean
  /** Normalised (normalizeLabel) names and symbols of every listed token. */
  readonly labels: ReadonlySet<string>
}

/**
 * A name or symbol as compared for impersonation: Unicode confusables mapped to the Latin letters they
 * imitate (the `confusables` package's table: Cyrillic "Т", Greek "Α", full-width "Ｕ" …), compatibility
 * forms folded (NFKC), invisible format characters (zero-width space and joiners, bidi marks: \p{Cf})
 * dropped, runs of spaces made one, lower-cased.
 */
export function normalizeLabel(label: string): string {
  const visible = label.normalize('NFKC').replace(/\p{Cf}/gu, '')
  return removeConfusables(visible).normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase()
}

/**
 * The lure patterns of `lure-in-metadata`, tried on a normalised name or symbol: a URL, a domain
 * (word.tld with a common or scam-favoured top-level domain), a Telegram link, or a call to act
 * ("claim", "reward", "visit", "redeem", "voucher", "airdrop", "bonus", "gift") as a whole word.
 */
export const LURE_PATTERNS: readonly RegExp[] = [
  /https?:\/\//u,
  /\bwww\./u,
  /\bt\.me\//u,
  /\b[a-z0-9-]+\s?\.\s?(?:com|io|org|net|xyz|app|finance|fi|gift|site|online|top|club|cc|co|me|link|pro|info|vip|live|fun|gg|to|ru|cash|claims?|events?|network|website|space|tech|world|today)\b/u,
  /\b(?:claim|claims|claimable|reward|rewards|visit|redeem|voucher|airdrop|bonus|gift)\b/u,
]

/** The token-level reasons a token's own metadata gives (its contract is not on the reviewed list). */
export function findTokenReasons(
  token: { chain: string; contractAddress: string; name: string | null; symbol: string | null },
  reviewed: ReviewedTokens,
): SpamReason[] {
  if (reviewed.isListed(token.chain, token.contractAddress)) return []
  const labels = [token.name, token.symbol]
    .filter((label) => label !== null && label !== '')
    .map((l) => normalizeLabel(l as string))
  const reasons: SpamReason[] = []
  if (labels.some((label) => reviewed.labels.has(label))) reasons.push('impersonates-listed-token')
  if (labels.some((label) => LURE_PATTERNS.some((pattern) => pattern.test(label)))) reasons.push('lure-in-metadata')
  return reasons
}

/**
 * What of an address is compared for a look-alike: hex without its `0x`, in lower case; another
 * encoding (base58, bech32) as written, case kept, without `fixedPrefix` (the characters every address
 * of its chain begins with: Tron's `T`, XRP's `r`), which no one needs to imitate.
 */
function addressBody(address: string, fixedPrefix: string): string {
  if (/^0x[0-9a-fA-F]+$/u.test(address)) return address.slice(2).toLowerCase()
  return fixedPrefix !== '' && address.startsWith(fixedPrefix) ? address.slice(fixedPrefix.length) : address
}

/**
 * What a look-alike shares with the address it imitates: the body's length and its first and last
 * `chars` characters (after `0x`, or after the chain's `fixedPrefix`); undefined for the zero address
 * (mints and burns: no one's, it imitates no one) and for addresses too short to have both ends.
 */
export function lookAlikeKey(address: string, chars: number, fixedPrefix = ''): string | undefined {
  const body = addressBody(address, fixedPrefix)
  if (body.length < chars * 2 || /^0+$/u.test(body)) return undefined
  return `${body.length}:${body.slice(0, chars)}:${body.slice(-chars)}`
}

/**
 * Where the addresses `address` could be a look-alike of are, as text: they begin with `startsWith`
 * (`0x` or the chain's `fixedPrefix`, then the body's first `chars` characters) and end with
 * `endsWith`; undefined when it imitates no one (lookAlikeKey). A store finds them by a prefix range
 * (store/spam-store.ts), then isLookAlike decides. Hex is matched in lower case, as it is stored.
 */
export function lookAlikeEnds(
  address: string,
  chars: number,
  fixedPrefix = '',
): { startsWith: string; endsWith: string } | undefined {
  if (lookAlikeKey(address, chars, fixedPrefix) === undefined) return undefined
  const body = addressBody(address, fixedPrefix)
  // what addressBody took off: `0x`, the fixed prefix, or nothing
  const head = address.slice(0, address.length - body.length)
  return { startsWith: head + body.slice(0, chars), endsWith: body.slice(-chars) }
}

/**
 * Whether `candidate` looks like `genuine` to someone who checks only its ends: the first and the last
 * `chars` characters (after `0x`, or after the chain's `fixedPrefix`) are the same, and the addresses
 * are not; the zero address is no look-alike.
 */
export function isLookAlike(candidate: string, genuine: string, chars: number, fixedPrefix = ''): boolean {
  const key = lookAlikeKey(candidate, chars, fixedPrefix)
  return (
    key !== undefined &&
    key === lookAlikeKey(genuine, chars, fixedPrefix) &&
    addressBody(candidate, fixedPrefix) !== addressBody(genuine, fixedPrefix)
  )
}

/** The first of `genuine` that `candidate` is a look-alike of, or undefined. */
export function findImitated(candidate: string, genuine: Iterable<string>, chars: number, fixedPrefix = ''): string | undefined {
  for (const address of genuine) if (isLookAlike(candidate, address, chars, fixedPrefix)) return address
  return undefined
}

/**
 * Addresses indexed by their look-alike key, so that finding which one a candidate imitates costs
 * one lookup, not one comparison per address (a wallet that paid 5,000 addresses).
 */
export function createLookAlikeIndex(chars: number, fixedPrefix = '') {
  const byKey = new Map<string, string[]>()
  return {
    add(address: string): void {
      const key = lookAlikeKey(address, chars, fixedPrefix)
      if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), address])
    },
    /** The first indexed address `candidate` is a look-alike of, or undefined. */
    findImitated(candidate: string): string | undefined {
      const key = lookAlikeKey(candidate, chars, fixedPrefix)
      return key === undefined ? undefined : findImitated(candidate, byKey.get(key) ?? [], chars, fixedPrefix)
    },
  }
}

export type LookAlikeIndex = ReturnType<typeof createLookAlikeIndex>

/** A verdict from the reasons that fired, in the vocabulary's order. */
export function verdictOf(reasons: Iterable<SpamReason>): SpamVerdict {
  const fired = new Set(reasons)
  if (fired.size === 0) return NOT_SPAM
  return { flagged: true, reasons: SPAM_REASONS.filter((reason) => fired.has(reason)), source: 'computed' }
}

/** An account's override wins over the computed verdict; its reasons are kept as evidence. */
export function applyOverride(verdict: SpamVerdict, override: boolean | undefined): SpamVerdict {
  if (override === undefined) return verdict
  return { flagged: override, reasons: verdict.reasons, source: 'account' }
}
