import type { ChainInfo } from '../config/chains.ts'
import { findListedAsset } from '../market/known-assets.ts'
import type { Pricer } from '../market/pricer.ts'
import { roundValue } from '../market/prices.ts'

/** One amount to value: the asset it is priced as (undefined: never priced), its UTC day and its decimal amount. */
export type Valued = { pricedAs: string | undefined; date: string; amount: string | null }

/** The fiat fields of one record: price_usd, value_usd and, for another currency, price_<ccy>, value_<ccy>. */
export type FiatFields = Record<string, number | null>

/**
 * The asset a record is priced as: the chain's coin, or a token whose contract is on the token list —
 * never what a contract says its symbol is. NFTs and unlisted tokens are not priced.
 */
export function pricedAsset(chain: ChainInfo, type: string, contractAddress: string | null): string | undefined {
  if (contractAddress === null) return chain.nativeAsset.symbol
  return type === 'erc20' ? findListedAsset(chain.chainId, contractAddress) : undefined
}

/** Fiat prices and values for many records at once (DESIGN §4): null when no price is known, never 0. */
export async function valueRecords(pricer: Pricer, items: readonly Valued[], currency: string): Promise<FiatFields[]> {
  const ccy = currency.toLowerCase()
  const wanted = items.filter((item) => item.pricedAs !== undefined && item.amount !== null)
  const prices = await pricer.priceMany(
    wanted.map((item) => ({ symbol: item.pricedAs as string, date: item.date })),
    currency,
  )
  return items.map((item) => {
    const price =
      item.pricedAs === undefined || item.amount === null ? null : (prices.get(`${item.pricedAs}|${item.date}`) ?? null)
    const amount = item.amount === null ? 0 : Number(item.amount)
    const fields: FiatFields = {
      price_usd: price?.usd ?? null,
      value_usd: price === null ? null : roundValue(amount * price.usd),
    }
    if (currency !== 'USD') {
      const other = price?.other ?? null
      fields[`price_${ccy}`] = other
      fields[`value_${ccy}`] = other === null ? null : roundValue(amount * other)
    }
    return fields
  })
}
