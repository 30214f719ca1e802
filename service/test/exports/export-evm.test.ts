import { type Abi, type Address, type Hash, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EXPORT_FORMAT_NAMES } from '../../src/domain/exports/formats.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { koinlyNet, readExport, wdsNet } from '../helpers/exports.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { clientsFor } from '../helpers/scripted-chain.ts'
import { compileTransactionContracts } from '../helpers/transaction-contracts.ts'

/**
 * GET /v1/wallets/{address}/export and /v1/portfolio/export through HTTP on real anvil nodes: a
 * wallet of its own (no genesis balance: its records are its whole history) plays a transaction of
 * every EVM category against small contracts (a pool, an NFT market, an airdropper), pays a second
 * wallet of its owner and is paid back, and an OP-stack node gives it a deposit. Every format's file
 * must parse strictly and follow its tool's columns, and the files must add up, per asset, to the
 * balances the node holds.
 */

const logger = createLogger('silent')
const WALLET = '0x00000000000000000000000000000000000c0ffe' as Address
const PARTNER = '0x0000000000000000000000000000000000beef01' as Address
const hex = (n: bigint) => `0x${n.toString(16)}`

let plain: Anvil
let op: Anvil
let t: ServedTestApp
let key: string
let tokens: { TKA: Address; TKB: Address }
/** The block after which the second half of the history starts (a period of its own). */
let midBlock: bigint
const payments: Hash[] = []

async function get(path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

async function playHistory(node: Anvil) {
  const a = await compileTransactionContracts()
  const { public: client, wallet } = clientsFor(node)
  const [bob, carol, dave] = (await wallet.getAddresses()) as [Address, Address, Address]
  await node.rpc('anvil_impersonateAccount', [WALLET])
  await node.rpc('anvil_impersonateAccount', [PARTNER])
  const mined = async (hash: Hash) => client.waitForTransactionReceipt({ hash })
  const deploy = async (name: keyof typeof a, args: unknown[] = []) => {
    const { abi, bytecode } = a[name]
    const receipt = await mined(await wallet.deployContract({ abi, bytecode, args, account: bob, chain: null }))
    return receipt.contractAddress as Address
  }
  const call = async (from: Address, address: Address, abi: Abi, functionName: string, args: unknown[], extra = {}) =>
    mined(await wallet.writeContract({ address, abi, functionName, args, account: from, chain: null, ...extra }))
  const send = async (from: Address, to: Address, value: bigint) =>
    mined(await wallet.sendTransaction({ account: from, to, value, chain: null }))

  const tokenA = await deploy('PoolToken', ['Token A', 'TKA'])
  const tokenB = await deploy('PoolToken', ['Token B', 'TKB'])
  tokens = { TKA: tokenA, TKB: tokenB }
  const nft = await deploy('MarketNft')
  const pool = await deploy('TinyPool', [tokenA, tokenB])
  const market = await deploy('NftMarket', [nft])
  const airdropper = await deploy('Airdropper')
  const [T, N, P, M] = [a.PoolToken.abi, a.MarketNft.abi, a.TinyPool.abi, a.NftMarket.abi]
  await call(bob, tokenA, T, 'mint', [pool, parseEther('1000000')])
  await call(bob, tokenB, T, 'mint', [pool, parseEther('1000000')])
  await call(bob, tokenA, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob, nft, N, 'mint', [market, 1n])
  await send(bob, market, parseEther('5'))
  await send(bob, pool, parseEther('5'))

  await send(bob, WALLET, parseEther('100'))
  await call(WALLET, pool, P, 'swapEthForA', [], { value: parseEther('1') })
  await call(WALLET, tokenA, T, 'approve', [pool, parseEther('1000000')])
  await call(WALLET, pool, P, 'swapAForB', [parseEther('500')])
  await call(WALLET, market, M, 'buyWithEth', [1n], { value: parseEther('0.5') })
  await call(WALLET, nft, N, 'setApprovalForAll', [market, true])
  midBlock = (await send(WALLET, WALLET, parseEther('1'))).blockNumber
  await call(WALLET, market, M, 'sell', [1n, parseEther('0.1')])
  await call(WALLET, tokenA, T, 'mint', [WALLET, parseEther('1000')])
  await call(WALLET, tokenB, T, 'burn', [parseEther('10')])
  const recipients = [WALLET, ...Array.from({ length: 19 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`)]
  await call(dave, airdropper, a.Airdropper.abi, 'drop', [tokenA, recipients, parseEther('7')])
  const failed = await call(WALLET, pool, P, 'swapAForB', [parseEther('100000000')], { gas: 200_000n })
  if (failed.status !== 'reverted') throw new Error('the failed call did not fail')
  await send(WALLET, carol, parseEther('2'))
  await call(WALLET, tokenA, T, 'transfer', [carol, parseEther('5')])
  payments.push((await send(WALLET, PARTNER, parseEther('3'))).transactionHash)
  payments.push((await send(PARTNER, WALLET, parseEther('1'))).transactionHash)
  await call(WALLET, pool, P, 'refundHalf', [], { value: parseEther('2') })
}

beforeAll(async () => {
  ;[plain, op] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 10, args: ['--network', 'optimism'] })])
  await playHistory(plain)
  await op.rpc('eth_sendTransaction', [
    {
      from: WALLET,
      to: WALLET,
      value: '0x0',
      mint: hex(parseEther('3')),
      type: '0x7e',
      sourceHash: `0x${'1'.padStart(64, '0')}`,
      isSystemTx: false,
      gas: '0x30000',
    },
  ])
  const nodes: Record<string, Anvil> = { ethereum: plain, optimism: op }
  t = await createServedTestApp(
    { chains: { ethereum: { urls: [plain.url], startBlock: 0 }, optimism: { urls: [op.url], startBlock: 0 } } },
    { findSource: async (chain) => evmSourceFor(chain, nodes[chain]?.url ?? 'http://127.0.0.1:1', logger) },
  )
  for (const chain of ['ethereum', 'optimism']) await indexToHead(t.db, chain, (nodes[chain] as Anvil).url, { logger })
  key = (await t.createKey('exports@example.com', 'pro')).key
}, 240_000)

afterAll(async () => {
  await t?.close()
  await Promise.all([plain?.close(), op?.close()])
})

/** The node's balances of the wallet per asset symbol at a block (the reconciliation endpoint's `node` column). */
async function nodeBalances(address: Address, atBlock?: bigint) {
  const at = atBlock === undefined ? '' : `&atBlock=${atBlock}`
  const { status, text } = await get(`/v1/wallets/${address}/reconciliation?chain=ethereum${at}`)
  expect(status).toBe(200)
  const assets = JSON.parse(text).assets as { contractAddress: string | null; node: string; tokenDecimals: number }[]
  const symbolOf = (contract: string | null) =>
    contract === null ? 'ETH' : (Object.entries(tokens).find(([, c]) => c.toLowerCase() === contract)?.[0] ?? contract)
  return new Map(assets.map((asset) => [symbolOf(asset.contractAddress), BigInt(asset.node.replace('.', ''))]))
}

const DECIMALS = (currency: string) => (currency === 'MNFT' ? 0 : 18)
const fungible = (totals: Map<string, bigint>) => new Map([...totals].filter(([asset]) => asset !== 'MNFT'))

// The scenario's TKA reaches 20 addresses in one airdrop (mass-airdrop, docs/spam.md): its records are
// spam, left out by default. Files compared with the node's balances ask for every transaction.
describe('GET /v1/wallets/{address}/export on EVM', () => {
  test('every format streams a file its tool reads: the published header, UTC dates, its vocabulary, exact amounts', async () => {
    for (const format of EXPORT_FORMAT_NAMES) {
      const { status, headers, text } = await get(
        `/v1/wallets/${WALLET}/export?chain=ethereum&format=${format}&currency=EUR&includeSpam=true`,
      )
      expect({ format, status, type: headers.get('content-type') }).toEqual({
        format,
        status: 200,
        type: 'text/csv; charset=utf-8',
      })
      expect(headers.get('content-disposition')).toBe(`attachment; filename="wds_${format}_${WALLET}_ethereum.csv"`)
      const rows = readExport(format, text)
      expect(rows.length).toBeGreaterThanOrEqual(15)
    }
  })

  test('koinly: received − sent − fees per asset is the balance the node holds; a swap is one row; the NFT has its id', async () => {
    const { text } = await get(`/v1/wallets/${WALLET}/export?chain=ethereum&format=koinly&includeSpam=true`)
    const rows = readExport('koinly', text)
    expect(fungible(koinlyNet(rows, DECIMALS))).toEqual(await nodeBalances(WALLET))
    const swaps = rows.filter((row) => (row.Description ?? '').startsWith('swap ('))
    expect(swaps.map((row) => [row['Sent Currency'], row['Received Currency'], row['Fee Currency']])).toEqual([
      ['TKA', 'TKB', 'ETH'],
      ['ETH', 'TKA', 'ETH'],
    ])
    expect(rows.some((row) => row['Received Currency'] === 'MNFT' && (row.Description ?? '').includes('MNFT #1'))).toBe(true)
    expect(rows.filter((row) => (row.Description ?? '').includes('failed transaction')).map((row) => row.Label)).toEqual(['cost'])
    expect(rows.filter((row) => (row.Description ?? '').startsWith('airdrop')).map((row) => row.Label)).toEqual(['airdrop'])
  })

  test('wds: one row per record; in − out per asset is the node balance, and a period adds up to its balance change', async () => {
    const { text } = await get(`/v1/wallets/${WALLET}/export?chain=ethereum&format=wds&includeSpam=true`)
    const rows = readExport('wds', text)
    expect(fungible(wdsNet(rows))).toEqual(await nodeBalances(WALLET))
    expect(rows.every((row) => row.fiatValue !== '0')).toBe(true)
    const later = await get(`/v1/wallets/${WALLET}/export?chain=ethereum&format=wds&fromBlock=${midBlock + 1n}&includeSpam=true`)
    const [before, after] = [await nodeBalances(WALLET, midBlock), await nodeBalances(WALLET)]
    const change = new Map([...after].map(([asset, balance]) => [asset, balance - (before.get(asset) ?? 0n)]))
    const net = fungible(wdsNet(readExport('wds', later.text)))
    expect(new Map([...change].filter(([asset, delta]) => delta !== 0n || net.has(asset)))).toEqual(net)
  })

  test('an OP-stack deposit is exported as a received amount without fee', async () => {
    const { text } = await get(`/v1/wallets/${WALLET}/export?chain=optimism&format=koinly`)
    expect(
      readExport('koinly', text).map((row) => [row['Received Amount'], row['Received Currency'], row['Fee Amount']]),
    ).toEqual([['3', 'ETH', '']])
  })

  test('bad input is a 400 problem naming the parameter', async () => {
    const cases: [string, string, string][] = [
      [`/v1/wallets/${WALLET}/export?format=excel`, 'invalid_parameter', 'format'],
      [`/v1/wallets/${WALLET}/export`, 'invalid_parameter', 'format'],
      [`/v1/wallets/${WALLET}/export?format=koinly&currency=XXX`, 'unsupported_currency', 'currency'],
      [`/v1/wallets/${WALLET}/export?format=koinly&fromDate=2024-01-01&toDate=2025-06-01`, 'date_range_too_large', 'toDate'],
      ['/v1/wallets/0x1234/export?format=koinly&chain=ethereum', 'invalid_address', 'address'],
      [
        `/v1/portfolio/export?format=koinly&${Array.from({ length: 51 }, () => `address=${WALLET}`).join('&')}`,
        'invalid_parameter',
        'address',
      ],
    ]
    for (const [path, code, param] of cases) {
      const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
      const problem = (await response.json()) as { code: string; detail: string; param?: string }
      expect({
        path,
        status: response.status,
        code: problem.code,
        names: problem.param === param || problem.detail.includes(param),
      }).toEqual({
        path,
        status: 400,
        code,
        names: true,
      })
    }
  })
})

describe('GET /v1/portfolio/export', () => {
  test('two wallets that pay each other: each payment is one internal transfer row, and the portfolio adds up', async () => {
    const both = `address=${WALLET}&address=${PARTNER}&chain=ethereum`
    const koinly = readExport('koinly', (await get(`/v1/portfolio/export?${both}&format=koinly&includeSpam=true`)).text)
    for (const hash of payments) {
      const rows = koinly.filter((row) => row.TxHash === hash)
      expect(
        rows.map((row) => [row['Sent Currency'], row['Received Currency'], row['Sent Amount'] === row['Received Amount']]),
      ).toEqual([['ETH', 'ETH', true]])
    }
    const [mine, theirs] = [await nodeBalances(WALLET), await nodeBalances(PARTNER)]
    const together = new Map([...mine].map(([asset, balance]) => [asset, balance + (theirs.get(asset) ?? 0n)]))
    expect(fungible(koinlyNet(koinly, DECIMALS))).toEqual(together)
    const cointracking = readExport(
      'cointracking',
      (await get(`/v1/portfolio/export?${both}&format=cointracking&includeSpam=true`)).text,
    )
    const internal = cointracking.filter((row) => payments.some((hash) => (row.Comment ?? '').endsWith(hash)))
    expect(internal.map((row) => row.Type)).toEqual(['Swap (non taxable)', 'Swap (non taxable)'])
  })
})
