/**
 * The four tiers of SPEC 5.3 and 8, by tier marker, with their monthly prices in US cents. Limits are a
 * table, not code spread over routes. `concurrent`: requests of one account that may run at once in
 * one API process (more are 429 at once); it doubles with each tier, from the 2 every account had before.
 */
export const TIERS = {
  free: { name: 'Free', maxKeys: 3, perMinute: 10, perDay: 1_000, concurrent: 2, monthlyPriceCents: 0 },
  std: { name: 'Standard', maxKeys: 10, perMinute: 100, perDay: 50_000, concurrent: 4, monthlyPriceCents: 49_00 },
  pro: { name: 'Professional', maxKeys: null, perMinute: 1_000, perDay: null, concurrent: 8, monthlyPriceCents: 299_00 },
  // Enterprise limits are per-account settings (these are the defaults until an admin sets them), and its price is by contract.
  ent: { name: 'Enterprise', maxKeys: null, perMinute: 1_000, perDay: null, concurrent: 16, monthlyPriceCents: null },
} as const satisfies Record<
  string,
  {
    name: string
    maxKeys: number | null
    perMinute: number
    perDay: number | null
    concurrent: number
    monthlyPriceCents: number | null
  }
>

export type Tier = keyof typeof TIERS

export const TIER_MARKERS = Object.keys(TIERS) as Tier[]

export function isTier(value: string): value is Tier {
  return Object.hasOwn(TIERS, value)
}

/** An account's request limits; `perDay: null` is unlimited; `concurrent` is per API process. */
export type Limits = { perMinute: number; perDay: number | null; concurrent: number }

/** The windowed part of the limits, which the rate-limit counters keep. */
export type RateLimits = Pick<Limits, 'perMinute' | 'perDay'>

/** An Enterprise account's own limits as an admin set them (`concurrent: null`: the tier's). */
export type EnterpriseLimits = RateLimits & { concurrent: number | null }

/** When an account moved to a tier (its first row: the tier it was created on). */
export type PlanChange = { tier: Tier; at: Date }
