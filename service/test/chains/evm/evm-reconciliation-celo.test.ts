import { readFileSync } from 'node:fs'
import { type Address, encodeAbiParameters, encodeFunctionData, type Hash, type Hex, keccak256, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../../../src/lib/logger.ts'
import { type Anvil, startAnvil } from '../../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../../helpers/app.ts'
import { compileFixtures } from '../../helpers/contracts.ts'
import { evmSourceFor, indexToHead } from '../../helpers/indexing.ts'
import { clientsFor } from '../../helpers/scripted-chain.ts'

/**
 * Celo's token duality on a real anvil in Celo mode (`--celo`: the transfer precompile at 0xfd). CELO
 * is the native coin and an ERC-20 at once: the token contract moves native balance through 0xfd with
 * zero call value and emits Transfer, while a plain native send emits none. A stand-in for the token
 * (fixtures/contracts/CeloToken.sol) is placed at CELO's address. Indexed as `celo`, every move is a coin
 * record, once, and GET /v1/wallets/{address}/reconciliation answers zero difference; indexed with a plain
 * profile (`linea`), the token's moves are missing from the coin and the difference shows.
 */

const logger = createLogger('silent')
const ETHER = 10n ** 18n
const CELO_TOKEN = '0x471ece3750da237f93b8e339c536989b8978a438' as Address
const tokenAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)'])

let node: Anvil
let t: ServedTestApp
let key: string
let alice: Address
let bob: Address
let carol: Address
let viaToken: Hash
let middle: number
let stable: Address
let beforeDebit: number
const DEBITED = 12_345n

async function get(path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/** The token's runtime code, compiled with solc from npm (offline). */
async function compileCeloToken(): Promise<Hex> {
  const { default: solc } = (await import('solc')) as { default: { compile(input: string): string } }
  const source = readFileSync(new URL('../../fixtures/contracts/CeloToken.sol', import.meta.url), 'utf8')
  const input = {
    language: 'Solidity',
    sources: { 'CeloToken.sol': { content: source } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } } },
  }
  type Output = {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  return `0x${output.contracts['CeloToken.sol']?.CeloToken?.evm.deployedBytecode.object}`
}

async function send(from: Address, to: Address, value: bigint, data?: Hex): Promise<Hash> {
  const { wallet, public: client } = clientsFor(node)
  const hash = await wallet.sendTransaction({ account: from, to, value, data, chain: null })
  await client.waitForTransactionReceipt({ hash })
  return hash
}

const transferData = (to: Address, value: bigint) =>
  encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to, value] })

beforeAll(async () => {
  node = await startAnvil({ chainId: 42220, args: ['--celo'] })
  await node.rpc('anvil_setCode', [CELO_TOKEN, await compileCeloToken()])
  ;[alice, bob, carol] = (await clientsFor(node).wallet.getAddresses()) as [Address, Address, Address]
  // a plain native send: call value, no Transfer log
  await send(alice, bob, ETHER, undefined)
  // the token moves native CELO through 0xfd: no call value, a Transfer log
  viaToken = await send(alice, CELO_TOKEN, 0n, transferData(bob, 2n * ETHER))
  middle = Number(await clientsFor(node).public.getBlockNumber())
  await send(bob, CELO_TOKEN, 0n, transferData(carol, ETHER / 2n))
  await send(carol, alice, ETHER / 4n, undefined)
  // a fee-currency token: bob holds some by a recorded mint; then a CIP-64 fee is debited from him. anvil
  // has no fee currencies, so the debit is made as debitGasFees makes it as far as the records can tell:
  // the balance changes with no Transfer log (anvil_setStorageAt on TestToken's balanceOf slot 4)
  const { TestToken } = await compileFixtures()
  const deployed = await clientsFor(node).wallet.deployContract({
    account: alice,
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ['Celo Dollar', 'cUSD', 18],
    chain: null,
  })
  stable = (await clientsFor(node).public.waitForTransactionReceipt({ hash: deployed })).contractAddress as Address
  await send(
    alice,
    stable,
    0n,
    encodeFunctionData({ abi: parseAbi(['function mint(address to, uint256 value)']), functionName: 'mint', args: [bob, ETHER] }),
  )
  beforeDebit = Number(await clientsFor(node).public.getBlockNumber())
  // anvil_setStorageAt changes the newest block's state: leave block `beforeDebit` behind first
  await node.rpc('evm_mine')
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [bob, 4n]))
  await node.rpc('anvil_setStorageAt', [stable, slot, `0x${(ETHER - DEBITED).toString(16).padStart(64, '0')}`])
  await node.rpc('evm_mine')

  t = await createServedTestApp(
    { chains: { celo: { urls: [node.url], startBlock: 0 }, linea: { urls: [node.url], startBlock: 0 } } },
    { findSource: async (chain) => evmSourceFor(chain, node.url, logger) },
  )
  await indexToHead(t.db, 'celo', node.url, { logger })
  await indexToHead(t.db, 'linea', node.url, { logger })
  key = (await t.createKey('celo@example.com', 'pro')).key
}, 120_000)
afterAll(async () => {
  await t?.close()
  await node?.close()
})

describe('Celo token duality on anvil --celo', () => {
  test('the node moves native CELO through 0xfd with zero call value (the emulation works)', async () => {
    const receipt = await clientsFor(node).public.getTransactionReceipt({ hash: viaToken })
    expect(receipt.status).toBe('success')
    expect(receipt.logs.map((log) => log.address)).toEqual([CELO_TOKEN])
    const before = await clientsFor(node).public.getBalance({ address: bob, blockNumber: receipt.blockNumber - 1n })
    const after = await clientsFor(node).public.getBalance({ address: bob, blockNumber: receipt.blockNumber })
    expect(after - before).toBe(2n * ETHER)
  })

  test('indexed as celo: the token move is one coin record (internal), never an ERC-20 record', async () => {
    const { status, body } = await get(`/v1/wallets/${bob}/transfers?chain=celo`)
    expect(status).toBe(200)
    type Row = Record<string, unknown>
    const received = body.transfers.filter((r: Row) => r.txHash === viaToken)
    expect(
      received.map((r: Row) => ({ type: r.type, from: r.from, to: r.to, value: r.value, contractAddress: r.contractAddress })),
    ).toEqual([
      {
        type: 'internal',
        from: alice.toLowerCase(),
        to: bob.toLowerCase(),
        value: '2.000000000000000000',
        contractAddress: null,
      },
    ])
    expect(body.transfers.filter((r: Row) => r.contractAddress === CELO_TOKEN)).toEqual([])
  })

  test('indexed as celo: every account and the token contract reconcile with zero difference, at two blocks', async () => {
    for (const address of [alice, bob, carol, CELO_TOKEN]) {
      for (const atBlock of [middle, beforeDebit]) {
        const { status, body } = await get(`/v1/wallets/${address}/reconciliation?chain=celo&atBlock=${atBlock}`)
        expect({ status, address, atBlock, reconciled: body.reconciled }).toEqual({
          status: 200,
          address,
          atBlock,
          reconciled: true,
        })
        expect(body.assets[0]).toMatchObject({
          type: 'native',
          asset: 'CELO',
          difference: '0.000000000000000000',
          explanation: null,
        })
        for (const asset of body.assets)
          expect({ address, atBlock, ...asset }).toEqual({ address, atBlock, ...asset, records: asset.node })
        // CELO is never an ERC-20 asset of its own: the coin once
        expect(body.assets.map((a: { contractAddress: string | null }) => a.contractAddress)).not.toContain(CELO_TOKEN)
      }
    }
  })

  test('a fee paid in an ERC-20 (emulated debit): the token difference is shown, explained by Celo fee currencies; a plain chain knows no reason', async () => {
    const celo = await get(`/v1/wallets/${bob}/reconciliation?chain=celo`)
    const token = celo.body.assets.find((a: { contractAddress: string | null }) => a.contractAddress === stable.toLowerCase())
    expect(token).toMatchObject({
      records: '1.000000000000000000',
      difference: '-0.000000000000012345',
      explanation: expect.stringMatching(/feeCurrency/),
    })
    expect(celo.body.assets[0]).toMatchObject({ type: 'native', difference: '0.000000000000000000' })
    expect(celo.body.reconciled).toBe(false)
    const plain = await get(`/v1/wallets/${bob}/reconciliation?chain=linea`)
    const plainToken = plain.body.assets.find(
      (a: { contractAddress: string | null }) => a.contractAddress === stable.toLowerCase(),
    )
    expect(plainToken).toMatchObject({
      difference: '-0.000000000000012345',
      explanation: expect.stringMatching(/records miss a movement/),
    })
  })

  test('indexed with a plain profile: the CELO moved by the token is missing from the coin, and the difference says so', async () => {
    const { body } = await get(`/v1/wallets/${bob}/reconciliation?chain=linea`)
    const [coin] = body.assets
    // bob got 2 CELO and sent 0.5 CELO through the token: 1.5 CELO the coin records do not hold
    expect(coin).toMatchObject({
      type: 'native',
      difference: '1.500000000000000000',
      explanation: expect.stringMatching(/records miss a movement/),
    })
    expect(body.reconciled).toBe(false)
  })
})
