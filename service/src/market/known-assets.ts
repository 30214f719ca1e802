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

/**
 * Tokens reviewed by us on chains the list does not cover (no EIP-155 chain ID), by chain slug and the
 * id the chain's records name the token by (TRC-20 contract, SPL mint, Sui coin type, XRP `currency.issuer`
 * with the currency as the ledger writes it: three letters, or 40 hex digits for longer codes). They
 * are never flagged as spam, and their names and symbols join the list's as what
 * `impersonates-listed-token` compares with (docs/spam.md). Not priced by contract: the list is EVM's.
 */
type ReviewedToken = { readonly id: string; readonly name: string; readonly symbol: string }
const REVIEWED_ELSEWHERE: Readonly<Record<string, readonly ReviewedToken[]>> = {
  tron: [
    // Tether's TRC-20 (tether.to/en/supported-protocols; tronscan.org/#/token20/TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t)
    { id: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', name: 'Tether USD', symbol: 'USDT' },
    // Circle's TRC-20 USDC (developers.circle.com/stablecoins/usdc-contract-addresses; minting ended in 2024, it still moves)
    { id: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', name: 'USD Coin', symbol: 'USDC' },
  ],
  solana: [
    // Circle's USDC mint (developers.circle.com/stablecoins/usdc-contract-addresses)
    { id: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', name: 'USD Coin', symbol: 'USDC' },
    // Tether's SPL mint (tether.to/en/supported-protocols)
    { id: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', name: 'USDT', symbol: 'USDT' },
    // Wrapped SOL, the SPL Token program's native mint (spl.solana.com/token#wrapping-sol); its metadata says "SOL"
    { id: 'So11111111111111111111111111111111111111112', name: 'Wrapped SOL', symbol: 'SOL' },
  ],
  sui: [
    // Circle's native USDC on Sui (developers.circle.com/stablecoins/usdc-contract-addresses)
    { id: '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC', name: 'USDC', symbol: 'USDC' },
  ],
  xrp: [
    // Bitstamp's USD (the issuer of xrpl.js's recorded USD payments; xrpl.org "Gateway Bulletins")
    { id: 'USD.rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B', name: 'USD', symbol: 'USD' },
    // GateHub's USD (docs.gatehub.net, "GateHub issuing addresses")
    { id: 'USD.rhub8VRN55s94qWKDv6jmDy1pUykJzF3wq', name: 'USD', symbol: 'USD' },
    // Ripple USD, code "RLUSD" as 40 hex digits (docs.ripple.com/products/stablecoin/developer-resources/rlusd-on-the-xrpl)
    { id: '524C555344000000000000000000000000000000.rMxCKbEDwqr76QuheSUMdEGf4B9xJ8m5De', name: 'Ripple USD', symbol: 'RLUSD' },
    // Circle's USDC on the XRP Ledger, code "USDC" as 40 hex digits (developers.circle.com/stablecoins/usdc-contract-addresses)
    { id: '5553444300000000000000000000000000000000.rGm7WCVp9gb4jZHWTEtGUr4dd74z2XuWhE', name: 'USDC', symbol: 'USDC' },
  ],
}

/**
 * The names and symbols of every reviewed token: the list's, and ours on the chains it does not
 * cover (what `impersonates-listed-token` compares with, on any chain).
 */
export const LISTED_LABELS: readonly string[] = [
  ...new Set([
    ...TOKEN_LIST.tokens.flatMap((token) => [token.name, token.symbol]),
    ...Object.values(REVIEWED_ELSEWHERE).flatMap((tokens) => tokens.flatMap((token) => [token.name, token.symbol])),
  ]),
]

/** Whether a token contract is reviewed: on the list for its chain ID, or reviewed by us on a chain without one. */
export function isReviewedToken(chain: { slug: string; chainId: number | null }, contractAddress: string): boolean {
  return (
    findListedAsset(chain.chainId, contractAddress) !== undefined ||
    (REVIEWED_ELSEWHERE[chain.slug]?.some((token) => token.id === contractAddress) ?? false)
  )
}
