import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Address, type Hash, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { BUNDLED_ECB_HISTORY, loadBundledFxRates } from '../../src/market/bundled-fx-rates.ts'
import { BUNDLED_PRICES_DIR, loadBundledPrices } from '../../src/market/bundled-prices.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { compileFixtures } from '../helpers/contracts.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { clientsFor } from '../helpers/scripted-chain.ts'

/**
 * Fiat values on transfers and balances (includePrices) through the HTTP API, on an anvil chain whose
 * blocks are dated 2021-02-26 (a Friday) and 2021-02-27, priced with the bundled CoinMarketCap closes
 * and ECB rates, which the test reads from the files itself. A token sits at USDC's real mainnet
 * address (on the token list) and another contract calls itself "USDC" too: only the first is valued.
 */

const logger = createLogger('silent')
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const FRIDAY = '2021-02-26'
const SATURDAY = '2021-02-27'

function cmcClose(file: string, date: string): number {
  const line = readFileSync(join(BUNDLED_PRICES_DIR, 'kaggle-coinmarketcap', file), 'utf8')
    .split('\n')
    .find((l) => l.split(',')[3]?.startsWith(date))
  const close = Number(line?.split(',')[7])
  if (!(close > 0)) throw new Error(`no ${file} close on ${date}`)
  return close
}

function ecbPerEur(date: string, currency: string): number {
  const [header = '', ...lines] = readFileSync(BUNDLED_ECB_HISTORY, 'utf8').trim().split('\n')
  return Number(lines.find((line) => line.startsWith(date))?.split(',')[header.split(',').indexOf(currency)])
}

const near = (expected: number) => ({
  asymmetricMatch: (actual: number) => Math.abs(actual - expected) <= Math.max(1e-8, Math.abs(expected) * 1e-11),
  toString: () => `≈ ${expected}`,
})

let anvil: Anvil
let t: ServedTestApp
let baseUrl: string
let key: string
let alice: Address
let bob: Address
let spam: Address
const tx: Record<string, Hash> = {}

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  const body: ReturnType<typeof JSON.parse> = await response.json()
  return { status: response.status, body }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, args: ['--timestamp', String(Date.parse(`${FRIDAY}T12:00:00Z`) / 1000)] })
  const artifacts = await compileFixtures()
  const { public: client, wallet } = clientsFor(anvil)
  ;[alice, bob] = (await wallet.getAddresses()) as [Address, Address]
  const mined = async (name: string, hash: Hash) => {
    tx[name] = hash
    return client.waitForTransactionReceipt({ hash })
  }
  const T = artifacts.TestToken
  const deploy = async () => {
    const hash = await wallet.deployContract({ ...T, args: ['USD Coin', 'USDC', 6], account: alice, chain: null })
    return (await mined('deploy', hash)).contractAddress as Address
  }
  // The listed USDC: a TestToken's code and storage (name, symbol, decimals: slots 0–2) put at the real address.
  const model = await deploy()
  await anvil.rpc('anvil_setCode', [USDC, await client.getCode({ address: model })])
  for (const slot of [0, 1, 2]) {
    const value = await client.getStorageAt({ address: model, slot: `0x${slot.toString(16)}` })
    await anvil.rpc('anvil_setStorageAt', [USDC, `0x${slot.toString(16)}`, value])
  }
  spam = await deploy()
  const call = (name: string, address: Address, functionName: string, args: unknown[]) =>
    wallet
      .writeContract({ address, abi: T.abi, functionName, args, account: alice, chain: null })
      .then((hash) => mined(name, hash))

  await mined('eth1', await wallet.sendTransaction({ account: alice, to: bob, value: parseEther('1.5'), chain: null }))
  await call('usdcMint', USDC, 'mint', [alice, 1_000_000_000n])
  await call('usdcTransfer', USDC, 'transfer', [bob, 250_500_000n])
  await call('spamMint', spam, 'mint', [alice, 1_000_000_000n])
  await call('spamTransfer', spam, 'transfer', [bob, 100_000_000n])
  await anvil.rpc('evm_setNextBlockTimestamp', [Date.parse(`${SATURDAY}T10:00:00Z`) / 1000])
  await mined('eth2', await wallet.sendTransaction({ account: alice, to: bob, value: parseEther('2'), chain: null }))

  const source = evmSourceFor('ethereum', anvil.url, logger)
  t = await createServedTestApp(
    { chains: { ethereum: { urls: [anvil.url], startBlock: 0 } } },
    { findSource: async () => source },
  )
  await loadBundledFxRates(t.stores.fxRates, logger)
  await loadBundledPrices(t.stores.assetPrices, logger)
  await indexToHead(t.db, 'ethereum', anvil.url, { logger })
  baseUrl = t.baseUrl
  key = (await t.createKey('values@example.com', 'pro')).key
}, 120_000)

afterAll(async () => {
  await t?.close()
  await anvil?.close()
})

describe('transfers with includePrices', () => {
  test("coins and listed tokens are valued at their day's close; the spam token, never", async () => {
    const { status, body } = await get(`/v1/wallets/${bob}/transfers?chain=ethereum&includePrices=true`)
    expect(status).toBe(200)
    expect(body.currency).toBe('USD')
    const byTx = (name: string) => body.transfers.find((r: { txHash: string }) => r.txHash === tx[name])
    const ethFri = cmcClose('coin_Ethereum.csv', FRIDAY)
    const ethSat = cmcClose('coin_Ethereum.csv', SATURDAY)
    const usdc = cmcClose('coin_USDCoin.csv', FRIDAY)
    expect(byTx('eth1')).toMatchObject({ value: '1.500000000000000000', price_usd: near(ethFri), value_usd: near(1.5 * ethFri) })
    expect(byTx('eth2')).toMatchObject({ value: '2.000000000000000000', price_usd: near(ethSat), value_usd: near(2 * ethSat) })
    expect(byTx('usdcTransfer')).toMatchObject({
      asset: 'USDC',
      contractAddress: USDC,
      value: '250.500000',
      price_usd: near(usdc),
      value_usd: near(250.5 * usdc),
    })
    const fake = byTx('spamTransfer')
    expect(fake).toMatchObject({ asset: 'USDC', contractAddress: spam.toLowerCase(), value: '100.000000' })
    expect(fake.price_usd).toBeNull()
    expect(fake.value_usd).toBeNull()
    expect(Object.keys(fake)).not.toContain('price_eur')
  })

  test("fees are valued as the chain's coin", async () => {
    const { body } = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&includePrices=true&limit=1000`)
    const fees = body.transfers.filter((r: { type: string }) => r.type === 'fee')
    expect(fees.length).toBeGreaterThanOrEqual(7)
    for (const fee of fees) {
      const price = cmcClose('coin_Ethereum.csv', fee.timestamp.slice(0, 10))
      expect(fee).toMatchObject({ price_usd: near(price), value_usd: near(Number(fee.value) * price) })
    }
  })

  test("another currency adds price_eur and value_eur from that day's ECB rate, Friday's on Saturday", async () => {
    const { body } = await get(`/v1/wallets/${bob}/transfers?chain=ethereum&includePrices=true&currency=EUR`)
    expect(body.currency).toBe('EUR')
    const eth2 = body.transfers.find((r: { txHash: string }) => r.txHash === tx.eth2)
    const eur = cmcClose('coin_Ethereum.csv', SATURDAY) / ecbPerEur(FRIDAY, 'USD')
    expect(eth2).toMatchObject({ price_eur: near(eur), value_eur: near(2 * eur) })
    expect(eth2.price_usd).toEqual(near(cmcClose('coin_Ethereum.csv', SATURDAY)))
    const fake = body.transfers.find((r: { txHash: string }) => r.txHash === tx.spamTransfer)
    expect([fake.price_eur, fake.value_eur]).toEqual([null, null])
  })

  test('/erc20-transfers takes includePrices and currency as /transfers does: the listed token valued, the spam token never', async () => {
    const { status, body } = await get(`/v1/wallets/${bob}/erc20-transfers?chain=ethereum&includePrices=true&currency=EUR`)
    expect([status, body.currency]).toEqual([200, 'EUR'])
    const byTx = (name: string) => body.transfers.find((r: { txHash: string }) => r.txHash === tx[name])
    const usdc = cmcClose('coin_USDCoin.csv', FRIDAY)
    expect(byTx('usdcTransfer')).toMatchObject({
      value: '250.500000',
      valueRaw: '250500000',
      price_usd: near(usdc),
      value_usd: near(250.5 * usdc),
      price_eur: near(usdc / ecbPerEur(FRIDAY, 'USD')),
    })
    expect(byTx('spamTransfer')).toMatchObject({ value: '100.000000', price_usd: null, value_usd: null, price_eur: null })
    const plain = await get(`/v1/wallets/${bob}/erc20-transfers?chain=ethereum`)
    expect(plain.body.currency).toBeUndefined()
    expect(Object.keys(plain.body.transfers[0]).filter((k) => k.includes('_'))).toEqual([])
  })

  test('/nft-transfers refuses includePrices and currency with the reason NFTs are not priced', async () => {
    for (const query of ['includePrices=true', 'currency=EUR']) {
      const { status, body } = await get(`/v1/wallets/${bob}/nft-transfers?chain=ethereum&${query}`)
      expect({ status, code: body.code, param: body.param, detail: body.detail }).toEqual({
        status: 400,
        code: 'invalid_parameter',
        param: query.split('=')[0],
        detail: expect.stringMatching(/^NFT transfers are not priced: an NFT has no daily market price/),
      })
    }
  })

  test('without includePrices there are no price fields', async () => {
    const { body } = await get(`/v1/wallets/${bob}/transfers?chain=ethereum`)
    expect(body.currency).toBeUndefined()
    for (const record of body.transfers) expect(Object.keys(record).filter((k) => k.includes('_'))).toEqual([])
  })
})

describe('balances with includePrices', () => {
  test('priced balances are valued at the as-of day; the spam token is priced: false and out of the total', async () => {
    const { status, body } = await get(`/v1/wallets/${bob}/balances?chain=ethereum&includePrices=true&currency=JPY`)
    expect(status).toBe(200)
    expect(body.asOf[0].timestamp.slice(0, 10)).toBe(SATURDAY)
    const eth = body.balances.find((b: { type: string }) => b.type === 'native')
    const usdc = body.balances.find((b: { contractAddress: string }) => b.contractAddress === USDC)
    const fake = body.balances.find((b: { contractAddress: string }) => b.contractAddress === spam.toLowerCase())
    const ethUsd = cmcClose('coin_Ethereum.csv', SATURDAY)
    const usdcUsd = cmcClose('coin_USDCoin.csv', SATURDAY)
    const jpyPerUsd = ecbPerEur(FRIDAY, 'JPY') / ecbPerEur(FRIDAY, 'USD')
    expect(eth).toMatchObject({ balance: '10003.500000000000000000', priced: true, price_usd: near(ethUsd) })
    expect(eth.value_usd).toEqual(near(10003.5 * ethUsd))
    expect(eth.price_jpy).toEqual(near(ethUsd * jpyPerUsd))
    expect(usdc).toMatchObject({ balance: '250.500000', priced: true, value_usd: near(250.5 * usdcUsd) })
    expect(fake).toMatchObject({ balance: '100.000000', priced: false, price_usd: null, value_usd: null, price_jpy: null })
    expect(body.priced).toBe(true)
    expect(body.total_value_usd).toEqual(near(eth.value_usd + usdc.value_usd))
    expect(body.total_value_jpy).toEqual(near(eth.value_jpy + usdc.value_jpy))
  })

  test('atDate prices the balance at the close of that day', async () => {
    const { body } = await get(`/v1/wallets/${bob}/balances?chain=ethereum&includePrices=true&atDate=${FRIDAY}`)
    const eth = body.balances.find((b: { type: string }) => b.type === 'native')
    expect(eth.balance).toBe('10001.500000000000000000')
    expect(eth.price_usd).toEqual(near(cmcClose('coin_Ethereum.csv', FRIDAY)))
  })
})
