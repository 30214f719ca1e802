/** A UTC date's fields, zero-padded: what every tool's date format is written from. */
function partsOf(date: Date) {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return {
    year: pad(date.getUTCFullYear(), 4),
    month: pad(date.getUTCMonth() + 1),
    day: pad(date.getUTCDate()),
    time: `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`,
  }
}

/** 2024-03-01 13:05:09 (UTC, no zone written). */
export function isoSpaced(date: Date): string {
  const { year, month, day, time } = partsOf(date)
  return `${year}-${month}-${day} ${time}`
}

/** 03/01/2024 13:05:09 (month first, UTC). */
export function usSlashed(date: Date): string {
  const { year, month, day, time } = partsOf(date)
  return `${month}/${day}/${year} ${time}`
}

/** 2024-03-01T13:05:09Z (ISO 8601 in UTC, whole seconds). */
export function isoZulu(date: Date): string {
  const { year, month, day, time } = partsOf(date)
  return `${year}-${month}-${day}T${time}Z`
}
