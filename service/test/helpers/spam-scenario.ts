import { type Abi, type Address, type Hash, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createLogger } from '../../src/lib/logger.ts'
import { loadBundledFxRates } from '../../src/market/bundled-fx-rates.ts'
import { loadBundledPrices } from '../../src/market/bundled-prices.ts'
import { issueToken } from '../../src/portal/tokens.ts'
import { type Anvil, startAnvil } from './anvil.ts'
import { createServedTestApp, type ServedTestApp } from './app.ts'
import { evmSourceFor, indexToHead } from './indexing.ts'
import { clientsFor } from './scripted-chain.ts'
import { compileTransactionContracts } from './transaction-contracts.ts'

/**
 * The spam scenario of the spam tests (docs/spam.md), on a real anvil node: a victim's history with each reason
 * for real — impersonations of the listed USDT (same symbol, a Cyrillic Т, a zero-width space), a
 * token named with a URL, an airdropper giving a token to 30 addresses in one transaction, and an
 * address-poisoning attacker at a look-alike of the victim's real counterparty — beside the listed
 * USDT (at its real address) and transfers between genuine wallets, which must all come out unflagged.
 *
 * The look-alike shares 2 characters at each end with carol (anvil's third account): the test's
 * configuration compares 2 (4 by default, ~2³² keys to try). Its key was found offline by trying
 * random keys (197,529 tries) and is committed here; it holds nothing anywhere.
 */

const logger = createLogger('silent')
export const VICTIM = '0x00000000000000000000000000000000005a1e00' as Address
export const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7' as Address
const LOOK_ALIKE_KEY = '0xc82fafa9e4f8538307be9f6a05ae109efc8dee025e780d77e5c0223e3b76779f'
const attacker = privateKeyToAccount(LOOK_ALIKE_KEY)

export type Spam = { flagged: boolean; reasons: string[]; source: string }
export type Rec = { id: string; txHash: Hash; type: string; from: string; to: string; spam: Spam } & { [key: string]: unknown }

/** Contracts the overrides test marks. */
export const tokens: { [name: string]: Address } = {}
let carol: Address
let dave: Address
/** The reasons each scripted transaction's records of the victim must carry (none where unlisted). */
export const expected = new Map<Hash, string[]>()
/** Scripted transactions by name. */
export const tx: { [name: string]: Hash } = {}

async function playHistory(node: Anvil) {
  const a = await compileTransactionContracts()
  const { public: client, wallet } = clientsFor(node)
  const [bob, , carolAddress, daveAddress, operator] = (await wallet.getAddresses()) as Address[]
  carol = carolAddress as Address
  dave = daveAddress as Address
  const T = a.PoolToken.abi
  await node.rpc('anvil_impersonateAccount', [VICTIM])
  const mined = async (hash: Hash, reasons: string[] = [], name?: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw new Error(`${name ?? hash} failed`)
    expected.set(hash, reasons)
    if (name !== undefined) tx[name] = hash
    return receipt
  }
  const deploy = async (name: 'PoolToken' | 'Airdropper', args: unknown[] = []) => {
    const { abi, bytecode } = a[name]
    const hash = await wallet.deployContract({ abi, bytecode, args, account: bob as Address, chain: null })
    return (await client.waitForTransactionReceipt({ hash })).contractAddress as Address
  }
  const call = async (
    from: Address,
    address: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
    reasons?: string[],
    name?: string,
  ) => mined(await wallet.writeContract({ address, abi, functionName, args, account: from, chain: null }), reasons, name)
  const send = async (from: Address, to: Address, value: bigint, reasons?: string[], name?: string) =>
    mined(await wallet.sendTransaction({ account: from, to, value, chain: null }), reasons, name)

  // the listed USDT: a PoolToken's code and storage (name and symbol: slots 0 and 1) put at the real address
  const model = await deploy('PoolToken', ['Tether USD', 'USDT'])
  await node.rpc('anvil_setCode', [USDT, await client.getCode({ address: model })])
  for (const slot of ['0x0', '0x1']) {
    await node.rpc('anvil_setStorageAt', [USDT, slot, await client.getStorageAt({ address: model, slot: slot as Hash })])
  }
  const fakeUsdt = await deploy('PoolToken', ['Tether USD', 'USDT'])
  const cyrillicUsdt = await deploy('PoolToken', ['Tether', 'USDТ'])
  const zeroWidthUsdc = await deploy('PoolToken', ['Token', 'US\u200bDC'])
  const lure = await deploy('PoolToken', ['Visit https://claim-usdt.xyz', 'GIFT'])
  const goodies = await deploy('PoolToken', ['Goodies', 'GDS'])
  const tokenA = await deploy('PoolToken', ['Token A', 'TKA'])
  const tokenB = await deploy('PoolToken', ['Token B', 'TKB'])
  Object.assign(tokens, { fakeUsdt, tokenA })
  const airdropper = await deploy('Airdropper')
  const D = a.Airdropper.abi
  await call(bob as Address, goodies, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob as Address, tokenB, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob as Address, tokenA, T, 'mint', [dave, parseEther('100')])

  // genuine history: funded, paid USDT, ETH and a token to carol, given a token by dave
  await send(bob as Address, VICTIM, parseEther('100'))
  await call(bob as Address, USDT, T, 'mint', [VICTIM, parseEther('1000')], [], 'usdtMint')
  await call(VICTIM, USDT, T, 'transfer', [carol, parseEther('100')], [], 'usdtToCarol')
  await send(VICTIM, carol, parseEther('1'))
  await call(dave, tokenA, T, 'transfer', [VICTIM, parseEther('5')])
  await call(VICTIM, tokenA, T, 'transfer', [carol, parseEther('1')])
  // a drop to 5 addresses: below the threshold
  const five = [VICTIM, ...Array.from({ length: 4 }, (_, i) => `0x${(0xb000 + i).toString(16).padStart(40, '0')}`)]
  await call(operator as Address, airdropper, D, 'drop', [tokenB, five, parseEther('1')])

  // spam tokens
  await call(bob as Address, fakeUsdt, T, 'mint', [VICTIM, parseEther('500')], ['impersonates-listed-token'])
  await call(bob as Address, cyrillicUsdt, T, 'mint', [VICTIM, parseEther('500')], ['impersonates-listed-token'])
  await call(bob as Address, zeroWidthUsdc, T, 'mint', [VICTIM, parseEther('500')], ['impersonates-listed-token'])
  await call(bob as Address, lure, T, 'mint', [VICTIM, parseEther('1')], ['lure-in-metadata'])
  const thirty = [VICTIM, ...Array.from({ length: 29 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`)]
  await call(operator as Address, airdropper, D, 'drop', [goodies, thirty, parseEther('7')], ['mass-airdrop'])

  // address poisoning from the look-alike of carol, signed with its own key
  await send(bob as Address, attacker.address, parseEther('1'))
  await call(bob as Address, USDT, T, 'mint', [attacker.address, 10n])
  const signed = async (to: Address, data: { abi: Abi; functionName: string; args: unknown[] } | undefined, value = 0n) =>
    data === undefined
      ? wallet.sendTransaction({ account: attacker, to, value, chain: null })
      : wallet.writeContract({ account: attacker, address: to, chain: null, ...data })
  await mined(
    await signed(USDT, { abi: T, functionName: 'transferFrom', args: [VICTIM, attacker.address, 0n] }),
    ['address-poisoning', 'zero-value-transfer-from'],
    'zeroTransferFrom',
  )
  await mined(await signed(USDT, { abi: T, functionName: 'transfer', args: [VICTIM, 1n] }), ['address-poisoning'], 'usdtDust')
  await mined(await signed(VICTIM, undefined, 1n), ['address-poisoning'], 'ethDust')
}

/**
 * Plays the history on a new anvil node and serves it indexed, the look-alike compared on 2
 * characters; an API key of a `pro` account of `email` and its portal JWT.
 */
export async function startSpamScenario(email: string) {
  const anvil: Anvil = await startAnvil({
    chainId: 1,
    args: ['--timestamp', String(Date.parse('2021-02-26T12:00:00Z') / 1000)],
  })
  await playHistory(anvil)
  const t: ServedTestApp = await createServedTestApp(
    { chains: { ethereum: { urls: [anvil.url], startBlock: 0 } }, spam: { lookAlikeChars: 2 } },
    { findSource: async () => evmSourceFor('ethereum', anvil.url, logger) },
  )
  await loadBundledFxRates(t.stores.fxRates, logger)
  await loadBundledPrices(t.stores.assetPrices, logger)
  await indexToHead(t.db, 'ethereum', anvil.url, { logger })
  const created = await t.createKey(email, 'pro')
  const portalToken = (await issueToken(t.jwtSecret, { id: created.record.accountId, sessionEpoch: 0 })).token
  return { anvil, t, key: created.key, portalToken, carol, dave }
}
