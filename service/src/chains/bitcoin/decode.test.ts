import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { BITCOIN_NETWORKS } from '../../config/addresses/bitcoin.ts'
import { UpstreamError } from '../../lib/errors.ts'
import { decodeBlock, NO_PARENT, type RpcBlock, toBlockRef, toSatoshis } from './decode.ts'

/**
 * Bitcoin Core's `getblock <hash> 2` answers for mainnet blocks 0, 1, 50,001 and 50,002, decoded and
 * compared with bitcoin-etl's export of the same blocks (test/fixtures/bitcoin-etl/PROVENANCE.md): every
 * transaction's position and coinbase flag, every input's outpoint, every output's address and value.
 */

const FIXTURES = new URL('../../../test/fixtures/bitcoin-etl/', import.meta.url)
const FOLDERS = ['block_0', 'block_1', 'block_with_transactions']

type Expected = {
  hash: string
  block_number: number
  index: number
  is_coinbase: boolean
  inputs: { spent_transaction_hash: string; spent_output_index: number }[]
  outputs: { addresses: string[]; value: number }[]
}

const read = (folder: string, name: string) => readFileSync(new URL(`${folder}/${name}`, FIXTURES), 'utf8')
const blocks: RpcBlock[] = FOLDERS.flatMap((folder) =>
  readdirSync(new URL(folder, FIXTURES))
    .filter((name) => name.startsWith('rpc_response_getblock_'))
    .map((name) => JSON.parse(read(folder, name)) as RpcBlock),
)
const expected: Expected[] = FOLDERS.flatMap((folder) =>
  read(folder, 'expected_transactions.json')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Expected),
)

describe('decodeBlock() on recorded mainnet blocks', () => {
  const decoded = blocks.map((block) => decodeBlock(block, BITCOIN_NETWORKS.bitcoin))
  const transactions = decoded.flatMap((block) => block.transactions.map((tx) => ({ block: block.number, tx })))

  test('every transaction bitcoin-etl exported, in its place, coinbase or not', () => {
    expect(decoded.map((block) => block.number).sort((a, b) => a - b)).toEqual([0, 1, 50_001, 50_002])
    expect(transactions.map(({ block, tx }) => [block, tx.index, tx.hash, tx.coinbase]).sort()).toEqual(
      expected.map((e) => [e.block_number, e.index, e.hash, e.is_coinbase]).sort(),
    )
  })

  test('inputs name the outputs they spend; outputs pay bitcoin-etl’s address (P2PK as its key’s P2PKH) their exact satoshis', () => {
    for (const { tx } of transactions) {
      const etl = expected.find((e) => e.hash === tx.hash) as Expected
      expect(tx.inputs.map((input) => [input.txHash, input.outputIndex])).toEqual(
        etl.inputs.map((input) => [input.spent_transaction_hash, input.spent_output_index]),
      )
      expect(tx.inputs.every((input) => input.prevout === undefined)).toBe(true) // verbosity 2: no prevout
      expect(tx.outputs.map((output) => [output.address, output.value, output.spendable])).toEqual(
        etl.outputs.map((output) => [output.addresses[0], BigInt(output.value), true]),
      )
    }
  })

  test('the genesis block names no parent; the others their parent', () => {
    const genesis = blocks.find((block) => block.height === 0) as RpcBlock
    expect(toBlockRef(genesis)).toEqual({ number: 0, hash: genesis.hash, parentHash: NO_PARENT, timestamp: genesis.time })
    const first = blocks.find((block) => block.height === 1) as RpcBlock
    expect(toBlockRef(first).parentHash).toBe(genesis.hash)
  })

  test('an input without its outpoint is a malformed answer', () => {
    const block = blocks.find((b) => b.tx.length > 1) as RpcBlock
    const [coinbase, spend] = block.tx
    const broken = { ...block, tx: [coinbase, { ...spend, vin: [{ txid: spend?.vin[0]?.txid }] }] } as RpcBlock
    expect(() => decodeBlock(broken, BITCOIN_NETWORKS.bitcoin)).toThrow(UpstreamError)
  })
})

test('toSatoshis(): exact to the satoshi up to 21 million coins; more decimals, negatives and non-numbers refused', () => {
  expect(toSatoshis(50)).toBe(5_000_000_000n)
  expect(toSatoshis(0.00000001)).toBe(1n)
  expect(toSatoshis(20_999_999.97690001)).toBe(2_099_999_997_690_001n)
  for (const bad of [0.000000001, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => toSatoshis(bad)).toThrow(UpstreamError)
})
