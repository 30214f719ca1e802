import { describe, expect, test } from 'vitest'
import { CHAINS } from '../../../config/chains.ts'
import type { Transfer } from '../../../domain/records.ts'
import { applyNativeAliases, decodeTransactionTransfers, feeOf } from '../decode.ts'
import type { RpcReceipt, RpcTransaction } from '../rpc-types.ts'
import { PROFILED_CHAINS, profileOf, unattributedIn } from './index.ts'

const tx = (fields: Partial<RpcTransaction> = {}): RpcTransaction => ({
  hash: '0xaa',
  transactionIndex: '0x0',
  from: '0x00000000000000000000000000000000000000a1',
  to: '0x00000000000000000000000000000000000000b2',
  value: '0x0',
  ...fields,
})
const receipt = (fields: Partial<RpcReceipt> = {}): RpcReceipt => ({
  transactionHash: '0xaa',
  transactionIndex: '0x0',
  status: '0x1',
  gasUsed: '0x5208', // 21,000
  effectiveGasPrice: '0x3b9aca00', // 1 gwei
  ...fields,
})
const GAS_FEE = 21_000n * 1_000_000_000n

describe('profiles', () => {
  test('every EVM chain of the registry has a profile, each with its sources', () => {
    const evm = CHAINS.filter((chain) => chain.family === 'evm').map((chain) => chain.slug)
    expect(evm.length).toBe(19)
    expect([...PROFILED_CHAINS].sort()).toEqual([...evm].sort())
    for (const slug of evm) expect(profileOf(slug).sources.length).toBeGreaterThan(0)
  })

  test('feeOf() adds l1Fee and the Isthmus operator fee on OP-stack chains, l1Fee on Scroll, neither on Mantle or Arbitrum', () => {
    const r = receipt({ l1Fee: '0x64', operatorFeeScalar: '0xf4240', operatorFeeConstant: '0x7' }) // scalar 1e6
    expect(feeOf(profileOf('base'), tx(), r)).toBe(GAS_FEE + 100n + 21_000n + 7n)
    expect(feeOf(profileOf('scroll'), tx(), r)).toBe(GAS_FEE + 100n)
    expect(feeOf(profileOf('mantle'), tx(), r)).toBe(GAS_FEE)
    expect(feeOf(profileOf('arbitrum'), tx(), r)).toBe(GAS_FEE)
  })

  test('feeOf() prices with the receipt effectiveGasPrice over the transaction gasPrice (Polygon zkEVM)', () => {
    expect(feeOf(profileOf('polygon-zkevm'), tx({ gasPrice: '0x77359400' }), receipt())).toBe(GAS_FEE)
  })

  test('a Celo transaction naming a feeCurrency (CIP-64) makes no coin fee: it pays in that ERC-20 (spec only: no recorded one)', () => {
    const cusd = '0x765de816845861e75a25fca122bb6898b8b1282a'
    const cip64 = tx({ type: '0x7b', feeCurrency: cusd })
    expect(decodeTransactionTransfers(7, cip64, receipt({ type: '0x7b', l1Fee: '0x64' }), false, profileOf('celo'))).toEqual([])
    // no feeCurrency, or the zero address: CELO pays, with the L1 fee
    for (const fields of [{}, { feeCurrency: null }, { feeCurrency: '0x0000000000000000000000000000000000000000' as const }]) {
      expect(feeOf(profileOf('celo'), tx({ type: '0x7b', ...fields }), receipt({ l1Fee: '0x64' }))).toBe(GAS_FEE + 100n)
    }
    // a chain without fee currencies charges the coin whatever the transaction says
    expect(feeOf(profileOf('base'), cip64, receipt())).toBe(GAS_FEE)
  })

  test('an OP-stack deposit pays no fee and its mint is a deposit from no one, kept when it reverts', () => {
    const deposit = tx({ type: '0x7e', mint: '0xde0b6b3a7640000', value: '0x10' })
    const rows = decodeTransactionTransfers(7, deposit, receipt({ type: '0x7E', status: '0x0' }), false, profileOf('optimism'))
    expect(rows.map(({ type, from, to, value }) => ({ type, from, to, value }))).toEqual([
      { type: 'deposit', from: null, to: deposit.from, value: 10n ** 18n },
    ])
    // on a chain without deposits a 0x7e transaction is an ordinary one
    expect(decodeTransactionTransfers(7, deposit, receipt({ status: '0x0' }), false, profileOf('linea'))[0]?.type).toBe('fee')
  })

  test('applyNativeAliases() drops Polygon 0x…1010 Transfer logs and turns Celo token logs into coin moves', () => {
    const log = (contract: string): Transfer => ({
      blockNumber: 1,
      txIndex: 0,
      seq: 2 ** 20,
      txHash: '0xaa',
      type: 'erc20',
      from: '0x00000000000000000000000000000000000000a1',
      to: '0x00000000000000000000000000000000000000b2',
      value: 5n,
      contractAddress: contract,
      tokenId: null,
      logIndex: 0,
      batchIndex: 0,
      operator: null,
    })
    const pol = log('0x0000000000000000000000000000000000001010')
    const celo = log('0x471ece3750da237f93b8e339c536989b8978a438')
    const other = log('0x00000000000000000000000000000000000000cc')
    expect(applyNativeAliases([pol, other], profileOf('polygon'))).toEqual([other])
    expect(applyNativeAliases([celo], profileOf('celo'))).toEqual([
      { ...celo, type: 'internal', contractAddress: null, batchIndex: null },
    ])
    expect(applyNativeAliases([celo], profileOf('ethereum'))).toEqual([celo])
  })

  test('unattributedIn() keeps the gaps of the blocks asked and drops those the node closes', () => {
    const ethereum = profileOf('ethereum')
    expect(unattributedIn(ethereum, 20_000_000, 20_000_010, 'trace_block')).toEqual([])
    expect(unattributedIn(ethereum, 0, 100, 'debug_traceBlockByNumber').map((g) => g.reason)).toEqual([
      expect.stringMatching(/before the merge/),
    ])
    expect(unattributedIn(ethereum, 0, 2_000_000, 'trace_block').map((g) => g.reason)).toEqual([
      expect.stringMatching(/DAO fork/),
    ])
    expect(unattributedIn(profileOf('blast'), 5, 6, 'trace_block').length).toBe(1)
  })
})
