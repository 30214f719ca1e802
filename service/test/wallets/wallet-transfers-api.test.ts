import type { AddressInfo } from 'node:net'
import { parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRpcClient } from '../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../src/chains/evm/evm-source.ts'
import { recordId } from '../../src/domain/records.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { compileFixtures } from '../helpers/contracts.ts'
import { clientsFor, playScriptedHistory, type ScriptedChain } from '../helpers/scripted-chain.ts'

const logger = createLogger('silent')
const lower = (a: string) => a.toLowerCase()

let t: TestApp
let baseUrl: string
let key: string
const nodes: Record<string, Anvil> = {}
let script: ScriptedChain

type Stored = {
  chain: string
  block: number
  time: Date
  txIndex: number
  seq: number
  txHash: string
  type: string
  from: string
  to: string | null
  value: string
  contract: string | null
  batchIndex: number | null
}

async function index(chain: string, rangeSize = 5) {
  const node = nodes[chain] as Anvil
  await createIndexer({
    chain,
    source: createEvmSource({ chain, rpc: createRpcClient({ urls: [node.url], logger }), logger }),
    store: createChainWriter(t.db),
    logger,
    startBlock: 0,
    rangeSize,
    stopAtHead: true,
  }).run(new AbortController().signal)
}

async function stored(chain: string): Promise<Stored[]> {
  const { rows } = await t.db.query<Stored>(
    `SELECT chain, block_number AS block, block_time AS time, tx_index AS "txIndex", seq, wds_unpack(tx_hash) AS "txHash",
            type, wds_unpack(from_address) AS from, wds_unpack(to_address) AS to, value::text AS value,
            wds_unpack(contract_address) AS contract,
            batch_index AS "batchIndex"
       FROM transfers WHERE chain = $1 ORDER BY block_number DESC, tx_index DESC, seq DESC`,
    [chain],
  )
  return rows
}

const involves = (address: string) => (r: Stored) => r.from === address || r.to === address
const newestFirst = (a: Stored, b: Stored) =>
  b.time.getTime() - a.time.getTime() ||
  (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0) ||
  b.block - a.block ||
  b.txIndex - a.txIndex ||
  b.seq - a.seq
const idOf = (r: { chain?: string; txHash: string; type: string; value?: string }) => `${r.chain}:${r.txHash}:${r.type}`

async function get(path: string, headers: Record<string, string> = { 'x-api-key': key }) {
  const response = await fetch(`${baseUrl}${path}`, { headers })
  // Bodies are checked by assertions, as JSON.parse gives them.
  const body: ReturnType<typeof JSON.parse> = await response.json()
  return { status: response.status, body }
}

/** Every record of a query, page by page. */
async function readAll(path: string, limit: number, between?: () => Promise<void>) {
  const records: ReturnType<typeof JSON.parse>[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const separator = path.includes('?') ? '&' : '?'
    const url = `${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`
    const { status, body } = await get(url)
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.transfers.length).toBeLessThanOrEqual(limit)
    records.push(...body.transfers)
    expect(body.hasMore).toBe(body.cursor !== null)
    cursor = body.cursor
    pages += 1
    if (between !== undefined && cursor !== null) await between()
  } while (cursor !== null && pages < 500)
  return records
}

beforeAll(async () => {
  const [ethereum, base, artifacts] = await Promise.all([
    startAnvil({ chainId: 1 }),
    startAnvil({ chainId: 8453 }),
    compileFixtures(),
  ])
  nodes.ethereum = ethereum
  nodes.base = base
  t = await createTestApp({
    chains: {
      ethereum: { urls: [ethereum.url], startBlock: 0 },
      base: { urls: [base.url], startBlock: 0 },
      optimism: { urls: ['http://127.0.0.1:1'], startBlock: 0 },
    },
  })
  ;[script] = await Promise.all([playScriptedHistory(ethereum, artifacts), playScriptedHistory(base, artifacts)])
  await Promise.all([index('ethereum'), index('base')])
  key = (await t.createKey('history@example.com', 'pro')).key
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await t?.close()
  await Promise.all(Object.values(nodes).map((node) => node.close()))
})

describe('GET /v1/wallets/{address}/transfers on one chain', () => {
  test('returns every transfer of the wallet, newest first, with the record fields of SPEC 2.1 and DESIGN', async () => {
    const alice = lower(script.accounts.alice)
    const expected = (await stored('ethereum')).filter(involves(alice))
    const { status, body } = await get(
      `/v1/wallets/${script.accounts.alice.toUpperCase().replace('0X', '0x')}/transfers?chain=ethereum&limit=1000`,
    )
    expect(status).toBe(200)
    expect(body).toMatchObject({ address: alice, chain: 'ethereum', cursor: null, hasMore: false })
    expect(body.chains).toBeUndefined()
    expect(body.transfers.map(idOf)).toEqual(expected.map(idOf))

    const native = body.transfers.find(
      (r: { txHash: string; type: string }) => r.txHash === script.tx.native && r.type === 'native',
    )
    const block = expected.find((r) => r.txHash === script.tx.native && r.type === 'native') as Stored
    expect(native).toEqual({
      id: recordId('ethereum', block.txHash, block.seq),
      chain: 'ethereum',
      chainId: 1,
      txHash: script.tx.native,
      blockNumber: block.block,
      timestamp: block.time.toISOString(),
      type: 'native',
      from: alice,
      to: lower(script.accounts.bob),
      value: '1.000000000000000000',
      valueRaw: '1000000000000000000',
      asset: 'ETH',
      contractAddress: null,
      tokenId: null,
      tokenDecimals: 18,
      logIndex: null,
      direction: 'out',
      spam: { flagged: false, reasons: [], source: 'computed' },
    })
    const fee = body.transfers.find((r: { txHash: string; type: string }) => r.txHash === script.tx.native && r.type === 'fee')
    expect(fee).toMatchObject({ to: null, direction: 'out', asset: 'ETH', tokenDecimals: 18 })
    expect(fee.value).toMatch(/^0\.\d{18}$/)
    const erc20 = body.transfers.find(
      (r: { txHash: string; type: string }) => r.txHash === script.tx.erc20Transfer && r.type === 'erc20',
    )
    expect(erc20).toMatchObject({
      value: '250.000000',
      valueRaw: '250000000',
      asset: 'TUSD',
      tokenDecimals: 6,
      contractAddress: lower(script.contracts.token),
    })
    expect(erc20.logIndex).toEqual(expect.any(Number))
    const nft = body.transfers.find(
      (r: { txHash: string; type: string }) => r.txHash === script.tx.nftTransfer && r.type === 'erc721',
    )
    expect(nft).toMatchObject({ value: '1', valueRaw: '1', asset: 'TNFT', tokenId: '1', tokenDecimals: null, direction: 'out' })
    const self = body.transfers.filter(
      (r: { txHash: string; type: string }) => r.txHash === script.tx.selfTransfer && r.type === 'native',
    )
    expect(self).toEqual([expect.objectContaining({ direction: 'out', from: alice, to: alice })])
  })

  test('direction: in and out split the history; a self-transfer matches both', async () => {
    const bob = lower(script.accounts.bob)
    const alice = lower(script.accounts.alice)
    const rows = await stored('ethereum')
    const incoming = await get(`/v1/wallets/${bob}/transfers?chain=ethereum&direction=in&limit=1000`)
    expect(incoming.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.to === bob).map(idOf))
    expect(incoming.body.transfers.every((r: { direction: string }) => r.direction === 'in')).toBe(true)
    const outgoing = await get(`/v1/wallets/${bob}/transfers?chain=ethereum&direction=out&limit=1000`)
    expect(outgoing.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.from === bob).map(idOf))
    const aliceIn = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&direction=in&limit=1000`)
    expect(aliceIn.body.transfers.map(idOf)).toContain(`ethereum:${script.tx.selfTransfer}:native`)
  })

  test('fromBlock/toBlock, asset, includeFees select the matching records', async () => {
    const alice = lower(script.accounts.alice)
    const rows = (await stored('ethereum')).filter(involves(alice))
    const [from, to] = [10, 20]
    const byBlocks = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&fromBlock=${from}&toBlock=${to}&limit=1000`)
    expect(byBlocks.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.block >= from && r.block <= to).map(idOf))

    const token = lower(script.contracts.token)
    const byToken = await get(
      `/v1/wallets/${alice}/transfers?chain=ethereum&asset=${token.toUpperCase().replace('0X', '0x')}&limit=1000`,
    )
    expect(byToken.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.contract === token).map(idOf))

    const native = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&asset=native&limit=1000`)
    const coin = rows.filter((r) => ['native', 'internal', 'fee'].includes(r.type))
    expect(native.body.transfers.map(idOf)).toEqual(coin.map(idOf))
    const nativeNoFees = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&asset=native&includeFees=false&limit=1000`)
    expect(nativeNoFees.body.transfers.map(idOf)).toEqual(coin.filter((r) => r.type !== 'fee').map(idOf))
    const noFees = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&includeFees=false&limit=1000`)
    expect(noFees.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.type !== 'fee').map(idOf))
  })

  test('fromDate/toDate: date-times are inclusive, a date-only toDate includes its whole day', async () => {
    const alice = lower(script.accounts.alice)
    const rows = (await stored('ethereum')).filter(involves(alice))
    const middle = rows[Math.floor(rows.length / 2)] as Stored
    const at = middle.time.toISOString()
    const after = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&fromDate=${at}&limit=1000`)
    expect(after.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.time >= middle.time).map(idOf))
    const before = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&toDate=${at}&limit=1000`)
    expect(before.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.time <= middle.time).map(idOf))
    const day = at.slice(0, 10)
    const wholeDay = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&fromDate=${day}&toDate=${day}&limit=1000`)
    expect(wholeDay.body.transfers.map(idOf)).toEqual(rows.filter((r) => r.time.toISOString().startsWith(day)).map(idOf))
    const future = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&fromDate=2999-01-01&limit=1000`)
    expect(future.body).toMatchObject({ transfers: [], cursor: null, hasMore: false })
  })

  test('includePrices adds null prices (no market data yet), in USD and another currency', async () => {
    const alice = lower(script.accounts.alice)
    const usd = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&includePrices=true&limit=1`)
    expect(usd.body.currency).toBe('USD')
    expect(usd.body.transfers[0]).toMatchObject({ price_usd: null, value_usd: null })
    const eur = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&includePrices=true&currency=eur&limit=1`)
    expect(eur.body.currency).toBe('EUR')
    expect(eur.body.transfers[0]).toMatchObject({ price_usd: null, value_usd: null, price_eur: null, value_eur: null })
    const without = await get(`/v1/wallets/${alice}/transfers?chain=ethereum&limit=1`)
    expect(without.body.transfers[0]).not.toHaveProperty('price_usd')
    expect(without.body).not.toHaveProperty('currency')
  })

  test('a wallet with no transfers gets 200 and an empty list', async () => {
    const { status, body } = await get(`/v1/wallets/0x${'12'.repeat(20)}/transfers?chain=ethereum`)
    expect({ status, body }).toEqual({
      status: 200,
      body: { address: `0x${'12'.repeat(20)}`, chain: 'ethereum', transfers: [], cursor: null, hasMore: false },
    })
  })

  test('small pages return every record exactly once, in order, for every wallet and direction', async () => {
    const rows = await stored('ethereum')
    for (const account of Object.values(script.accounts)) {
      const address = lower(account)
      for (const direction of ['both', 'in', 'out'] as const) {
        const expected = rows.filter((r) =>
          direction === 'in' ? r.to === address : direction === 'out' ? r.from === address : involves(address)(r),
        )
        for (const limit of [1, 4]) {
          const records = await readAll(`/v1/wallets/${address}/transfers?chain=ethereum&direction=${direction}`, limit)
          expect(records.map(idOf)).toEqual(expected.map(idOf))
        }
      }
    }
  })
})

describe('errors', () => {
  const alice = () => lower(script.accounts.alice)
  const cases: [string, number, string, string][] = [
    ['?chain=ethereum&limit=0', 400, 'invalid_parameter', 'limit'],
    ['?chain=ethereum&limit=1001', 400, 'invalid_parameter', 'limit'],
    ['?chain=ethereum&fromDate=2024-01-01&toDate=2025-01-01', 400, 'date_range_too_large', 'toDate'],
    ['?chain=ethereum&fromDate=2025-02-01&toDate=2025-01-01', 400, 'invalid_parameter', 'fromDate'],
    ['?chain=ethereum&fromDate=2025-02-30', 400, 'invalid_parameter', 'fromDate'],
    ['?chain=ethereum&toDate=yesterday', 400, 'invalid_parameter', 'toDate'],
    ['?chain=ethereum&fromBlock=10&toBlock=5', 400, 'invalid_parameter', 'fromBlock'],
    ['?chain=ethereum&fromBlock=-1', 400, 'invalid_parameter', 'fromBlock'],
    ['?chain=dogecoin', 400, 'unknown_chain', 'chain'],
    ['?chain=ethereum&direction=sideways', 400, 'invalid_parameter', 'direction'],
    ['?chain=ethereum&includePrices=true&currency=XYZ', 400, 'unsupported_currency', 'currency'],
    ['?chain=ethereum&asset=0x1234', 400, 'invalid_address', 'asset'],
    ['?chain=ethereum&cursor=garbage', 400, 'invalid_cursor', 'cursor'],
    ['?chain=ethereum&chian=base', 400, 'invalid_parameter', 'chian'],
    ['?chain=polygon', 503, 'chain_unavailable', 'chain'],
    ['?chain=optimism', 503, 'chain_unavailable', 'chain'],
  ]
  test.each(cases)('/transfers%s → %i %s naming %s', async (query, status, code, param) => {
    const response = await get(`/v1/wallets/${alice()}/transfers${query}`)
    expect(response).toMatchObject({ status, body: { status, code, param, type: `urn:wds:problem:${code}` } })
  })

  const tokenCases: [string, number, string, string][] = [
    ['erc20-transfers?chain=polygon', 503, 'chain_unavailable', 'chain'],
    ['erc20-transfers?chain=nope', 400, 'unknown_chain', 'chain'],
    ['erc20-transfers?limit=0', 400, 'invalid_parameter', 'limit'],
    ['erc20-transfers?contractAddress=0x12', 400, 'invalid_address', 'contractAddress'],
    ['nft-transfers?fromDate=2024-01-01&toDate=2025-01-02', 400, 'date_range_too_large', 'toDate'],
    ['nft-transfers?direction=in', 400, 'invalid_parameter', 'direction'],
    ['nft-transfers?cursor=eyJ2IjoxfQ', 400, 'invalid_cursor', 'cursor'],
  ]
  test.each(tokenCases)('/%s → %i %s naming %s', async (path, status, code, param) => {
    const response = await get(`/v1/wallets/${alice()}/${path}`)
    expect(response).toMatchObject({ status, body: { status, code, param } })
  })

  test('a 365-day range is accepted, 366 days is not', async () => {
    expect((await get(`/v1/wallets/${alice()}/transfers?chain=ethereum&fromDate=2025-01-01&toDate=2026-01-01`)).status).toBe(200)
    expect((await get(`/v1/wallets/${alice()}/transfers?chain=ethereum&fromDate=2025-01-01&toDate=2026-01-02`)).status).toBe(400)
  })

  test('a malformed address → 400 invalid_address; any case in, lower case out', async () => {
    for (const address of ['0x1234', 'hello', `0x${'g'.repeat(40)}`]) {
      const response = await get(`/v1/wallets/${address}/transfers?chain=ethereum`)
      expect(response).toMatchObject({ status: 400, body: { code: 'invalid_address', param: 'address' } })
    }
    expect((await get(`/v1/wallets/0x1234/erc20-transfers`)).body).toMatchObject({ code: 'invalid_address', param: 'address' })
  })

  test('a cursor of another query → 400 invalid_cursor', async () => {
    const first = await get(`/v1/wallets/${alice()}/transfers?chain=ethereum&limit=2`)
    const cursor = first.body.cursor as string
    for (const other of ['chain=base', 'chain=ethereum&direction=in', 'chain=ethereum&includeFees=false', '']) {
      const response = await get(`/v1/wallets/${alice()}/transfers?${other}&limit=2&cursor=${cursor}`)
      expect(response).toMatchObject({ status: 400, body: { code: 'invalid_cursor', param: 'cursor' } })
    }
    const erc20 = await get(`/v1/wallets/${alice()}/erc20-transfers?limit=2&cursor=${cursor}`)
    expect(erc20).toMatchObject({ status: 400, body: { code: 'invalid_cursor' } })
    expect((await get(`/v1/wallets/${alice()}/transfers?chain=ethereum&limit=5&cursor=${cursor}`)).status).toBe(200)
  })

  test('a chain still in its first backfill → 503 chain_unavailable saying so', async () => {
    await t.db.query(`INSERT INTO chain_states (chain, indexed_from, indexed_block) VALUES ('optimism', 0, 100)`)
    const response = await get(`/v1/wallets/${alice()}/transfers?chain=optimism`)
    expect(response).toMatchObject({ status: 503, body: { code: 'chain_unavailable', param: 'chain' } })
    expect(response.body.detail).toContain('still backfilling')
    await t.db.query(`DELETE FROM chain_states WHERE chain = 'optimism'`)
  })

  test('no key → 401', async () => {
    expect((await get(`/v1/wallets/${alice()}/transfers`, {})).body).toMatchObject({ code: 'missing_api_key' })
  })
})

describe('all chains (no chain parameter)', () => {
  test('merges every configured chain newest first and names the unavailable ones', async () => {
    const alice = lower(script.accounts.alice)
    const expected = [...(await stored('ethereum')), ...(await stored('base'))].filter(involves(alice)).sort(newestFirst)
    const { status, body } = await get(`/v1/wallets/${alice}/transfers?limit=1000`)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      address: alice,
      chain: 'all',
      addressReadAs: ['evm', 'near', 'move'],
      chains: ['ethereum', 'optimism', 'base'],
      unavailableChains: [
        {
          chain: 'optimism',
          code: 'chain_unavailable',
          detail: expect.stringMatching(/^OP Mainnet \(optimism\) (is still backfilling|has not been indexed yet)/),
        },
      ],
      hasMore: false,
    })
    expect(body.transfers.map(idOf)).toEqual(expected.map(idOf))
    expect(new Set(body.transfers.map((r: { chainId: number }) => r.chainId))).toEqual(new Set([1, 8453]))
  })

  test('small pages across chains return every record exactly once, in order', async () => {
    const bob = lower(script.accounts.bob)
    const expected = [...(await stored('ethereum')), ...(await stored('base'))].filter(involves(bob)).sort(newestFirst)
    for (const limit of [1, 5]) {
      expect((await readAll(`/v1/wallets/${bob}/transfers?`, limit)).map(idOf)).toEqual(expected.map(idOf))
    }
  })
})

describe('GET /v1/wallets/{address}/erc20-transfers', () => {
  test('ERC-20 records of SPEC 2.3, values with exactly tokenDecimals places, ethereum by default', async () => {
    const alice = lower(script.accounts.alice)
    const token = lower(script.contracts.token)
    const { status, body } = await get(`/v1/wallets/${alice}/erc20-transfers?contractAddress=${token}`)
    expect(status).toBe(200)
    expect(body).toMatchObject({ address: alice, chain: 'ethereum', cursor: null, hasMore: false })
    const rows = (await stored('ethereum')).filter((r) => r.contract === token && involves(alice)(r))
    expect(body.transfers.map((r: { txHash: string }) => r.txHash)).toEqual(rows.map((r) => r.txHash))
    const mint = body.transfers.find((r: { txHash: string }) => r.txHash === script.tx.erc20Mint)
    const minted = rows.find((r) => r.txHash === script.tx.erc20Mint) as Stored
    expect(mint).toEqual({
      id: recordId('ethereum', minted.txHash, minted.seq),
      chain: 'ethereum',
      chainId: 1,
      txHash: script.tx.erc20Mint,
      blockNumber: minted.block,
      logIndex: expect.any(Number),
      timestamp: minted.time.toISOString(),
      from: '0x0000000000000000000000000000000000000000',
      to: alice,
      contractAddress: token,
      tokenSymbol: 'TUSD',
      tokenDecimals: 6,
      value: '1000.000000',
      valueRaw: '1000000000',
      direction: 'in',
      spam: { flagged: false, reasons: [], source: 'computed' },
    })
    const values = body.transfers.map((r: { value: string }) => r.value)
    expect(values).toEqual(expect.arrayContaining(['250.000000', '0.000001', '0.000010']))
  })

  test('without contractAddress: every token; unknown decimals give raw units', async () => {
    const alice = lower(script.accounts.alice)
    const records = await readAll(`/v1/wallets/${alice}/erc20-transfers?chain=base`, 3)
    const rows = (await stored('base')).filter((r) => r.type === 'erc20' && involves(alice)(r))
    expect(records.map((r) => r.txHash)).toEqual(rows.map((r) => r.txHash))
    const bytes32 = records.find((r) => r.contractAddress === lower(script.contracts.bytes32Token))
    expect(bytes32).toMatchObject({ tokenSymbol: 'MKR', tokenDecimals: null, value: '5' })
    const reverting = records.find((r) => r.contractAddress === lower(script.contracts.revertingToken))
    expect(reverting).toMatchObject({ tokenSymbol: null, tokenDecimals: 6, value: '0.000007' })
  })
})

describe('GET /v1/wallets/{address}/nft-transfers', () => {
  test('one record per Transfer log and per TransferBatch element', async () => {
    const bob = lower(script.accounts.bob)
    const alice = lower(script.accounts.alice)
    const { body } = await get(`/v1/wallets/${bob}/nft-transfers`)
    const batch = body.transfers.filter((r: { txHash: string }) => r.txHash === script.tx.multiBatchTransfer)
    expect(batch).toEqual([
      expect.objectContaining({
        batchIndex: 1,
        tokenId: '3',
        amount: '6',
        tokenStandard: 'erc1155',
        operator: alice,
        direction: 'in',
      }),
      expect.objectContaining({
        batchIndex: 0,
        tokenId: '1',
        amount: '5',
        tokenStandard: 'erc1155',
        operator: alice,
        direction: 'in',
      }),
    ])
    const nft = body.transfers.find((r: { txHash: string }) => r.txHash === script.tx.nftTransfer)
    expect(nft).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      chain: 'ethereum',
      chainId: 1,
      txHash: script.tx.nftTransfer,
      blockNumber: expect.any(Number),
      logIndex: expect.any(Number),
      batchIndex: 0,
      timestamp: expect.any(String),
      from: alice,
      to: bob,
      contractAddress: lower(script.contracts.nft),
      tokenId: '1',
      tokenStandard: 'erc721',
      amount: '1',
      operator: null,
      collectionName: 'Test NFT',
      collectionSymbol: 'TNFT',
      direction: 'in',
      spam: { flagged: false, reasons: [], source: 'computed' },
    })
    const rows = (await stored('ethereum')).filter((r) => ['erc721', 'erc1155'].includes(r.type) && involves(bob)(r))
    expect(body.transfers.map((r: { txHash: string }) => r.txHash)).toEqual(rows.map((r) => r.txHash))
    const multi = lower(script.contracts.multi)
    const all = await readAll(`/v1/wallets/${alice}/nft-transfers?contractAddress=${multi}`, 2)
    const expected = (await stored('ethereum')).filter((r) => r.contract === multi && involves(alice)(r))
    expect(all.map((r) => `${r.txHash}:${r.batchIndex}`)).toEqual(expected.map((r) => `${r.txHash}:${r.batchIndex}`))
  })
})

describe('pagination while new blocks are indexed', () => {
  test('pages of the first query neither skip nor repeat records; a new query sees the new blocks', async () => {
    const alice = lower(script.accounts.alice)
    const send = async (chain: string) => {
      const { wallet } = clientsFor(nodes[chain] as Anvil)
      await wallet.sendTransaction({
        account: script.accounts.alice,
        to: script.accounts.bob,
        value: parseEther('0.01'),
        chain: null,
      })
    }
    // Ethereum's clock moves ahead, so the newest 8 records are on ethereum, so the first page of 7 holds no base record: base has no
    // position yet, and only the first page's upper bound keeps base's new blocks out of later pages.
    await (nodes.ethereum as Anvil).rpc('evm_increaseTime', [1000])
    for (let i = 0; i < 4; i++) await send('ethereum')
    await index('ethereum')
    const both = async () => [...(await stored('ethereum')), ...(await stored('base'))].filter(involves(alice)).sort(newestFirst)
    const before = await both()
    const first = await get(`/v1/wallets/${alice}/transfers?limit=7`)
    expect(first.body.transfers.map((r: { chain: string }) => r.chain)).toEqual(Array(7).fill('ethereum'))
    const between = async () => {
      await Promise.all([send('base'), send('ethereum')])
      await Promise.all([index('base'), index('ethereum')])
    }
    const records = await readAll(`/v1/wallets/${alice}/transfers?`, 7, between)
    expect(records.map(idOf)).toEqual(before.map(idOf))
    const after = await both()
    expect(after.length).toBeGreaterThan(before.length)
    expect((await get(`/v1/wallets/${alice}/transfers?limit=1000`)).body.transfers.map(idOf)).toEqual(after.map(idOf))
  })
})

describe('record ids', () => {
  test('every record has an id unique in its chain, the same after the chain is rolled back and indexed again', async () => {
    const alice = lower(script.accounts.alice)
    const read = async () => {
      const records = await readAll(`/v1/wallets/${alice}/transfers?chain=base`, 7)
      return records.map((r) => `${r.id} ${r.txHash} ${r.type} ${r.value}`)
    }
    const before = await read()
    expect(before.length).toBeGreaterThan(10)
    expect(new Set(before.map((line) => line.split(' ')[0])).size).toBe(before.length)
    const stored = await createChainWriter(t.db).rollbackTo('base', -1)
    expect(stored.transfers).toBeGreaterThan(0)
    await index('base', 3)
    expect(await read()).toEqual(before)
  })
})
