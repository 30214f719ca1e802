import type { ChainInfo } from '../../config/chains.ts'
import { RECORD_TYPES, type RecordType } from '../../domain/records.ts'
import { findListedAsset } from '../../market/known-assets.ts'
import type { Pricer } from '../../market/pricer.ts'
import { roundValue } from '../../market/prices.ts'

/** One amount to value: the asset it is priced as (undefined: never priced), its UTC day and its decimal amount. */
export type Valued = { pricedAs: string | undefined; date: string; amount: string | null }

/**
 * The asset a record is priced as: the chain's coin, or a token whose contract is on the token list —
 * never what a contract says its symbol is. NFTs and unlisted tokens are not priced.
 */
export function pricedAsset(chain: ChainInfo, type: RecordType, contractAddress: string | null): string | undefined {
  if (contractAddress === null) return chain.nativeAsset.symbol
  return RECORD_TYPES[type] === 'token' ? findListedAsset(chain.chainId, contractAddress) : undefined
}

/**
 * Adds `price_usd`, `value_usd` and, for another currency, `price_<ccy>`, `value_<ccy>` to each record
 * in place (DESIGN §4): null when no price is known, never 0. `items[i]` says how to value `records[i]`.
 */
export async function addFiatValues(
  pricer: Pricer,
  records: readonly object[],
  items: readonly Valued[],
  currency: string,
): Promise<void> {
  const prices = await pricer.priceEach(
    items.map((item) => ({ symbol: item.amount === null ? undefined : item.pricedAs, date: item.date })),
    currency,
  )
  const priceKey = `price_${currency.toLowerCase()}`
  const valueKey = `value_${currency.toLowerCase()}`
  records.forEach((target, i) => {
    const record = target as Record<string, number | null>
    const price = prices[i] ?? null
    const amount = price === null ? 0 : Number(items[i]?.amount)
    record.price_usd = price?.usd ?? null
    record.value_usd = price === null ? null : roundValue(amount * price.usd)
    if (currency === 'USD') return
    const other = price?.other ?? null
    record[priceKey] = other
    record[valueKey] = other === null ? null : roundValue(amount * other)
  })
}
