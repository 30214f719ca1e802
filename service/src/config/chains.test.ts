import { describe, expect, test } from 'vitest'
import { CHAINS, findChain, headPollIntervalMs, isChainSlug, matchesAddressFormat, toEnvSuffix } from './chains.ts'

/** SPEC 2.5, copied row by row: (chain ID or null, slug, coverage). */
const SPEC_CHAINS: [number | null, string, string][] = [
  [1, 'ethereum', 'Fully indexed'],
  [56, 'bsc', 'Fully indexed'],
  [137, 'polygon', 'Fully indexed'],
  [42161, 'arbitrum', 'Fully indexed'],
  [10, 'optimism', 'Fully indexed'],
  [8453, 'base', 'Fully indexed'],
  [43114, 'avalanche', 'Fully indexed'],
  [250, 'fantom', 'Fully indexed'],
  [100, 'gnosis', 'Fully indexed'],
  [59144, 'linea', 'Fully indexed'],
  [324, 'zksync', 'Fully indexed'],
  [534352, 'scroll', 'Fully indexed'],
  [5000, 'mantle', 'Fully indexed'],
  [81457, 'blast', 'Fully indexed'],
  [42220, 'celo', 'Fully indexed'],
  [1101, 'polygon-zkevm', 'Fully indexed'],
  [169, 'manta', 'Partially indexed'],
  [7777777, 'zora', 'Partially indexed'],
  [34443, 'mode', 'Partially indexed'],
  [null, 'bitcoin', 'UTXO indexed'],
  [null, 'solana', 'Explorer API'],
  [null, 'tron', 'Fully indexed'],
  [null, 'cosmos', 'Explorer API'],
  [null, 'xrp', 'Explorer API'],
  [null, 'cardano', 'Explorer API'],
  [null, 'polkadot', 'Explorer API'],
  [null, 'near', 'Explorer API'],
  [null, 'aptos', 'Explorer API'],
  [null, 'sui', 'Explorer API'],
]

describe('CHAINS', () => {
  test('holds exactly the 29 chains of SPEC 2.5 with their chain IDs and coverage wording', () => {
    expect(CHAINS.map((c) => [c.chainId, c.slug, c.coverage])).toEqual(SPEC_CHAINS)
  })

  test('gives EVM chains the evm family, 18-decimal natives and RPC sources', () => {
    for (const chain of CHAINS.filter((c) => c.chainId !== null)) {
      expect({ slug: chain.slug, family: chain.family, decimals: chain.nativeAsset.decimals, source: chain.source }).toEqual({
        slug: chain.slug,
        family: 'evm',
        decimals: 18,
        source: 'rpc',
      })
    }
  })

  test('reads Explorer API chains through explorers and indexed chains through their nodes', () => {
    for (const chain of CHAINS)
      expect([chain.slug, chain.source]).toEqual([chain.slug, chain.coverage === 'Explorer API' ? 'explorer' : 'rpc'])
  })

  test('knows the native assets of the non-EVM chains', () => {
    const natives = Object.fromEntries(
      CHAINS.filter((c) => c.family !== 'evm').map((c) => [c.slug, `${c.nativeAsset.symbol}/${c.nativeAsset.decimals}`]),
    )
    expect(natives).toEqual({
      bitcoin: 'BTC/8',
      solana: 'SOL/9',
      tron: 'TRX/6',
      cosmos: 'ATOM/6',
      xrp: 'XRP/6',
      cardano: 'ADA/6',
      polkadot: 'DOT/10',
      near: 'NEAR/24',
      aptos: 'APT/8',
      sui: 'SUI/9',
    })
  })

  test('has each chain’s example address match its own format', () => {
    for (const chain of CHAINS)
      expect([chain.slug, matchesAddressFormat(chain, chain.address.example)]).toEqual([chain.slug, true])
  })

  test('tells real addresses of other chains apart', () => {
    const ethereum = findChain('ethereum')
    const bitcoin = findChain('bitcoin')
    const tron = findChain('tron')
    if (ethereum === undefined || bitcoin === undefined || tron === undefined) throw new Error('registry incomplete')
    expect(matchesAddressFormat(ethereum, '0xD8DA6BF26964AF9D7EED9E03E53415D37AA96045')).toBe(true)
    expect(matchesAddressFormat(ethereum, '0xd8da6bf26964af9d7eed9e03e53415d37aa9604')).toBe(false)
    expect(matchesAddressFormat(ethereum, bitcoin.address.example)).toBe(false)
    expect(matchesAddressFormat(bitcoin, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(true)
    expect(matchesAddressFormat(bitcoin, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(true)
    expect(matchesAddressFormat(bitcoin, ethereum.address.example)).toBe(false)
    expect(matchesAddressFormat(tron, ethereum.address.example)).toBe(false)
  })

  test('looks chains up by slug and names their environment suffix', () => {
    expect(isChainSlug('polygon-zkevm')).toBe(true)
    expect(isChainSlug('Polygon')).toBe(false)
    expect(findChain('eth')).toBeUndefined()
    expect(toEnvSuffix('polygon-zkevm')).toBe('POLYGON_ZKEVM')
    expect(new Set(CHAINS.map((c) => toEnvSuffix(c.slug))).size).toBe(29)
  })
})

describe('head poll interval', () => {
  test('is a quarter of the chain’s block time, within 100 to 500 ms', () => {
    expect(headPollIntervalMs('arbitrum')).toBe(100)
    expect(headPollIntervalMs('bsc')).toBe(188)
    expect(headPollIntervalMs('ethereum')).toBe(500)
    expect(headPollIntervalMs('not-a-chain')).toBe(500)
  })
})
