import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { decodeNativeLedgerLog } from '../../../src/chains/evm/native-ledger.ts'
import { profileOf } from '../../../src/chains/evm/profiles/index.ts'
import type { RpcLog } from '../../../src/chains/evm/rpc-types.ts'
import type { Transfer } from '../../../src/domain/records.ts'

/**
 * zkSync Era's coin is kept by 0x…800A, whose logs are its ledger: decoded from real receipts
 * (matter-labs/block-explorer, fixtures/zksync-receipts/PROVENANCE.md), the records give each
 * address's balance change, fees charged to whoever paid them.
 */

const ledger = profileOf('zksync').nativeLedger
if (ledger === undefined) throw new Error('zksync has no native ledger')

type EthersLog = Omit<RpcLog, 'blockNumber' | 'logIndex' | 'transactionIndex'> & {
  blockNumber: number
  logIndex: number
  transactionIndex: number
}
type EthersReceipt = {
  from: string
  gasUsed: { hex: string }
  effectiveGasPrice: { hex: string }
  logs: EthersLog[]
}

const hex = (n: number) => `0x${n.toString(16)}` as const

function recordsOf(name: string): { receipt: EthersReceipt; records: Transfer[] } {
  const receipt = JSON.parse(
    readFileSync(new URL(`../../fixtures/zksync-receipts/${name}`, import.meta.url), 'utf8'),
  ) as EthersReceipt
  const records = receipt.logs.flatMap((log) =>
    decodeNativeLedgerLog(
      { ...log, blockNumber: hex(log.blockNumber), logIndex: hex(log.logIndex), transactionIndex: hex(log.transactionIndex) },
      ledger as NonNullable<typeof ledger>,
    ),
  )
  return { receipt, records }
}

/** Each address's change of balance by the records. */
function changes(records: readonly Transfer[]): Record<string, bigint> {
  const out: Record<string, bigint> = {}
  for (const r of records) {
    if (r.from !== null) out[r.from] = (out[r.from] ?? 0n) - r.value
    if (r.to !== null) out[r.to] = (out[r.to] ?? 0n) + r.value
  }
  return out
}

describe('zkSync Era: the 0x…800A logs are the coin ledger', () => {
  test('a transfer: the fee is what moved to the bootloader, not gasUsed × effectiveGasPrice', () => {
    const { receipt, records } = recordsOf('eth-transfer.json')
    const sender = receipt.from.toLowerCase()
    const recipient = '0xc9593dc3dcad5f3804aaa5af12a9d74d0c00e4b0'
    const fee = 0x18034d06a6900n
    expect(records.map(({ type, from, to, value }) => ({ type, from, to, value }))).toEqual([
      { type: 'fee', from: sender, to: null, value: fee },
      { type: 'internal', from: sender, to: recipient, value: 10n ** 16n },
    ])
    expect(changes(records)).toEqual({ [sender]: -(fee + 10n ** 16n), [recipient]: 10n ** 16n })
    // gasUsed × effectiveGasPrice would have charged 355,685,500,000,000 wei instead of 422,439,300,000,000
    expect(BigInt(receipt.gasUsed.hex) * BigInt(receipt.effectiveGasPrice.hex)).not.toBe(fee)
  })

  test('a paymaster transaction: the fee is charged to the paymaster, the sender pays it in a token', () => {
    const { receipt, records } = recordsOf('paymasters-transfer.json')
    const paymaster = '0x0265d9a5af8af5fe070933e5e549d8fef08e09f4'
    expect(records.map(({ type, from, to, value }) => ({ type, from, to, value }))).toEqual([
      { type: 'fee', from: paymaster, to: null, value: 0x0b2cf038c49e00n },
    ])
    expect(changes(records)[receipt.from.toLowerCase()]).toBeUndefined()
  })

  test('an L1 deposit: minted to the depositor from no one, the L1-paid fee minted to the bootloader, the excess refunded', () => {
    const { receipt, records } = recordsOf('eth-deposit.json')
    const depositor = receipt.from.toLowerCase()
    expect(records.map(({ type, from, to }) => ({ type, from, to }))).toEqual([
      { type: 'deposit', from: null, to: depositor },
      { type: 'internal', from: depositor, to: depositor },
      { type: 'deposit', from: null, to: ledger?.bootloader },
      { type: 'deposit', from: null, to: depositor },
    ])
    expect(changes(records)[depositor]).toBe(10n ** 16n + 0x29eb1faec300n)
  })
})
