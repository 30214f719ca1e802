export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

/** A UTC calendar date (YYYY-MM-DD) `days` later (earlier when negative). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}
