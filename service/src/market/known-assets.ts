import { createRequire } from 'node:module'
import { CHAINS } from '../config/chains.ts'

type TokenList = { name: string; version: { major: number; minor: number; patch: number }; tokens: TokenListEntry[] }
type TokenListEntry = { chainId: number; address: string; symbol: string; name: string; decimals: number }

/**
 * Uniswap's default token list (npm @uniswap/default-token-list): tokens reviewed by its maintainers, by
 * chain ID and contract address. A token is priced only when its contract is on this list, as the asset
 * the list names — never by the symbol a contract claims for itself, so a spam token calling itself
 * "USDC" is never valued.
 */
const TOKEN_LIST = createRequire(import.meta.url)('@uniswap/default-token-list') as TokenList

/** Wrapped coins redeemable one for one are priced as the coin they wrap. */
const PRICED_AS: Readonly<Record<string, string>> = { WETH: 'ETH' }

const BY_CONTRACT = new Map(
  TOKEN_LIST.tokens.map((token) => [`${token.chainId}:${token.address.toLowerCase()}`, PRICED_AS[token.symbol] ?? token.symbol]),
)

/** The asset symbol a listed token contract is priced as, or undefined for a contract not on the list. */
export function findListedAsset(chainId: number | null, contractAddress: string): string | undefined {
  return chainId === null ? undefined : BY_CONTRACT.get(`${chainId}:${contractAddress.toLowerCase()}`)
}

/**
 * The assets `wds market sync` fetches daily closes for: every chain's coin and the main listed tokens.
 * A provider skips the ones it does not carry.
 */
export const SYNCED_SYMBOLS: readonly string[] = [
  ...new Set([...CHAINS.map((chain) => chain.nativeAsset.symbol), 'USDC', 'USDT', 'DAI', 'WBTC', 'UNI', 'LINK']),
]

/** The names and symbols of every token on the list (what `impersonates-listed-token` compares with). */
export const LISTED_LABELS: readonly string[] = [...new Set(TOKEN_LIST.tokens.flatMap((token) => [token.name, token.symbol]))]

/**
 * Tokens reviewed by us on chains the list does not cover (no EIP-155 chain ID), by chain slug and
 * contract or mint: never flagged as spam (they are not priced by contract: the list is EVM's).
 */
const REVIEWED_ELSEWHERE: Readonly<Record<string, readonly string[]>> = {
  tron: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'], // USDT (Tether's TRC-20)
  solana: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'], // USDC, USDT
}

/** Whether a token contract is reviewed: on the list for its chain ID, or reviewed by us on a chain without one. */
export function isReviewedToken(chain: { slug: string; chainId: number | null }, contractAddress: string): boolean {
  return (
    findListedAsset(chain.chainId, contractAddress) !== undefined ||
    (REVIEWED_ELSEWHERE[chain.slug]?.includes(contractAddress) ?? false)
  )
}
