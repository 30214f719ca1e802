/**
 * A NEAR account id (nomicon "Account ID" rules): 2–64 characters of lower-case letters, digits and
 * `-`/`_` separators, in `.`-separated parts (`alice.near`), or a 64-hex implicit account (or an
 * ETH-implicit `0x` + 40 hex). Top-level names other than `near`/`tg` are accepted when they have the
 * shape (`sweat`); the form is the canonical one.
 */
export function canonicalNearAccount(text: string): string | undefined {
  if (text.length < 2 || text.length > 64) return undefined
  if (/^[0-9a-f]{64}$/.test(text) || /^0x[0-9a-f]{40}$/.test(text)) return text
  return /^(?:[a-z\d]+[-_])*[a-z\d]+(?:\.(?:[a-z\d]+[-_])*[a-z\d]+)*$/.test(text) && text.includes('.') ? text : undefined
}
