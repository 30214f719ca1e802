import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { outputAddress, type RpcTransaction, toSatoshis } from '../../../src/chains/bitcoin/decode.ts'
import type { ChainSource } from '../../../src/chains/chain-source.ts'
import { ChainMismatchError, connectChainSource } from '../../../src/chains/sources.ts'
import { BITCOIN_NETWORKS } from '../../../src/config/addresses/bitcoin.ts'
import { findChain } from '../../../src/config/chains.ts'
import type { ChainBlock, OutputValue } from '../../../src/domain/records.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { type BitcoinReplayer, readBitcoinRecording, startBitcoinReplayer } from '../../helpers/bitcoin-rpc-replayer.ts'

const FIXTURES = new URL('../../fixtures/bitcoin-etl/', import.meta.url).pathname
const CASES = ['block_0', 'block_1', 'block_without_transactions', 'stream_50001_50002']
const logger = createLogger('silent')
const bitcoin = findChain('bitcoin')
if (bitcoin === undefined) throw new Error('no bitcoin in the registry')

type ExpectedTransaction = {
  hash: string
  block_number: number
  index: number
  is_coinbase: boolean
  fee: number
  inputs: { spent_transaction_hash: string; spent_output_index: number; addresses: string[]; value: number }[]
  outputs: { index: number; addresses: string[]; value: number; type: string }[]
}

const expected: ExpectedTransaction[] = CASES.flatMap((folder) =>
  readFileSync(join(FIXTURES, folder, 'expected_transactions.json'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ExpectedTransaction),
)

const recording = readBitcoinRecording(CASES.map((folder) => join(FIXTURES, folder)))

/** The outputs of the recorded `getrawtransaction` answers: what the store would hold of the blocks before 50001. */
const storedOutputs = new Map<string, OutputValue>()
for (const [txid, tx] of recording.transactions) {
  for (const output of (tx as unknown as RpcTransaction).vout) {
    storedOutputs.set(`${txid}:${output.n}`, {
      address: outputAddress(output.scriptPubKey, BITCOIN_NETWORKS.bitcoin).address,
      value: toSatoshis(output.value),
    })
  }
}

let replayer: BitcoinReplayer
let source: ChainSource
const lookedUp: string[] = []

beforeAll(async () => {
  replayer = await startBitcoinReplayer(recording)
  source = (await connectChainSource(bitcoin, {
    urls: [replayer.url],
    logger,
    findOutputs: async (refs) => {
      const found = new Map<string, OutputValue>()
      for (const ref of refs) {
        const key = `${ref.txHash}:${ref.outputIndex}`
        lookedUp.push(key)
        const value = storedOutputs.get(key)
        if (value !== undefined) found.set(key, value)
      }
      return found
    },
  })) as ChainSource
})
afterAll(() => replayer?.close())

async function readBlocks(from: number, to: number): Promise<ChainBlock[]> {
  const fetched = await source.fetchBlocks(from, to)
  return (await source.completeBlocks?.(fetched)) ?? fetched
}

describe('the Bitcoin source on recorded mainnet answers (bitcoin-etl)', () => {
  test('connectChainSource() accepts a mainnet node and refuses it when another network is configured', async () => {
    expect(source.chain).toBe('bitcoin')
    await expect(
      connectChainSource(bitcoin, { urls: [replayer.url], logger, bitcoinNetwork: 'litecoin-regtest' }),
    ).rejects.toThrow(ChainMismatchError)
  })

  test('getHead() and findBlockRef() read the node; a height above its head is undefined', async () => {
    const head = await source.getHead()
    expect(head).toEqual({
      number: 50002,
      hash: '000000002066d7f9b134c30b5005b7bf5fbfa52f279883f1fde793dcdc964266',
      parentHash: '000000001c920d495e1eeef2452b6d1c6c229a919b28196c103ecffebabee141',
      timestamp: expect.any(Number),
    })
    expect(await source.findBlockRef(50003)).toBeUndefined()
  })

  test('blocks 50001–50002: the outputs created and spent are bitcoin-etl’s, inputs valued from the stored outputs', async () => {
    const blocks = await readBlocks(50001, 50002)
    const txs = expected.filter((t) => t.block_number >= 50001)
    expect(blocks.flatMap((b) => b.outputs?.created ?? []).map((o) => [o.txHash, o.outputIndex, o.address, o.value])).toEqual(
      txs.flatMap((t) => t.outputs.map((o) => [t.hash, o.index, o.addresses[0], BigInt(o.value)])),
    )
    expect(blocks.flatMap((b) => b.outputs?.spent ?? []).map((o) => [o.txHash, o.outputIndex, o.spentByTxHash])).toEqual(
      txs.flatMap((t) => t.inputs.map((i) => [i.spent_transaction_hash, i.spent_output_index, t.hash])),
    )
    // one lookup for all the range's inputs, none per input at the node
    expect(lookedUp.length).toBe(txs.reduce((n, t) => n + t.inputs.length, 0))
    expect(replayer.requests).not.toContain('getrawtransaction')
  })

  test('blocks 50001–50002: each address’s records sum to its balance change in each transaction, fees to the fee', async () => {
    const blocks = await readBlocks(50001, 50002)
    const records = blocks.flatMap((b) => b.transfers)
    for (const t of expected.filter((e) => e.block_number >= 50001)) {
      const change = new Map<string, bigint>()
      for (const i of t.inputs)
        change.set(i.addresses[0] as string, (change.get(i.addresses[0] as string) ?? 0n) - BigInt(i.value))
      for (const o of t.outputs)
        change.set(o.addresses[0] as string, (change.get(o.addresses[0] as string) ?? 0n) + BigInt(o.value))
      const mine = records.filter((r) => r.txHash === t.hash)
      const net = new Map<string, bigint>()
      for (const r of mine) {
        const owner = (r.to ?? r.from) as string
        net.set(owner, (net.get(owner) ?? 0n) + (r.to === null ? -r.value : r.value))
      }
      expect(net).toEqual(new Map([...change].filter(([, v]) => v !== 0n)))
      expect(mine.filter((r) => r.type === 'fee').reduce((s, r) => s + r.value, 0n)).toBe(BigInt(t.fee))
      expect(mine.every((r) => r.txIndex === t.index)).toBe(true)
    }
    // 7940cdde…: two inputs of two addresses pay 1HaHT…; its in record names both senders
    const paid = records.find((r) => r.txHash.startsWith('7940cdde') && r.to !== null)
    expect({
      type: paid?.type,
      from: paid?.from,
      to: paid?.to,
      value: paid?.value,
      counterparties: paid?.counterparties,
    }).toEqual({
      type: 'native',
      from: null,
      to: '1HaHTfmvoUW6i6nhJf8jJs6tU4cHNmBQHQ',
      value: 10_000_000_000n,
      counterparties: [
        { address: '1DoQeKfU3dYhN9bxMpFFcVUnufCPDqSPae', value: 5_000_000_000n },
        { address: '1PZMgkF2x161qvfP7dhoWSEEU3SjnQE1m9', value: 5_000_000_000n },
      ],
    })
  })

  test('blocks 0, 1 and 50000: each coinbase is a reward to its P2PK key’s address; the genesis output is not in the UTXO set', async () => {
    const blocks = [...(await readBlocks(0, 1)), ...(await readBlocks(50000, 50000))]
    expect(blocks.flatMap((b) => b.transfers.map((r) => [r.blockNumber, r.type, r.from, r.to, r.value]))).toEqual(
      expected
        .filter((t) => t.block_number <= 50000)
        .map((t) => [t.block_number, 'reward', null, t.outputs[0]?.addresses[0], BigInt(t.outputs[0]?.value ?? 0)]),
    )
    expect(blocks.map((b) => b.outputs?.created.length)).toEqual([0, 1, 1])
  })

  test('completeBlocks() refuses an input whose output is not stored (a UTXO chain is indexed from block 0)', async () => {
    storedOutputs.clear()
    await expect(readBlocks(50001, 50001)).rejects.toThrow(/is not indexed/)
  })
})
