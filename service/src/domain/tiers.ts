/** The four tiers of SPEC 5.3 and 8, by tier marker, with their monthly prices in US cents. Limits are a table, not code spread over routes. */
export const TIERS = {
  free: { name: 'Free', maxKeys: 3, perMinute: 10, perDay: 1_000, monthlyPriceCents: 0 },
  std: { name: 'Standard', maxKeys: 10, perMinute: 100, perDay: 50_000, monthlyPriceCents: 49_00 },
  pro: { name: 'Professional', maxKeys: null, perMinute: 1_000, perDay: null, monthlyPriceCents: 299_00 },
  // Enterprise limits are per-account settings (these are the defaults until an admin sets them), and its price is by contract.
  ent: { name: 'Enterprise', maxKeys: null, perMinute: 1_000, perDay: null, monthlyPriceCents: null },
} as const satisfies Record<
  string,
  { name: string; maxKeys: number | null; perMinute: number; perDay: number | null; monthlyPriceCents: number | null }
>

export type Tier = keyof typeof TIERS

export const TIER_MARKERS = Object.keys(TIERS) as Tier[]

export function isTier(value: string): value is Tier {
  return Object.hasOwn(TIERS, value)
}

/** An account's request limits; `perDay: null` is unlimited. */
export type Limits = { perMinute: number; perDay: number | null }

/** When an account moved to a tier (its first row: the tier it was created on). */
export type PlanChange = { tier: Tier; at: Date }
