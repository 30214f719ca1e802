import { expect, test } from 'vitest'
import { findChain } from '../../config/chains.ts'
import { WdsError } from '../../lib/errors.ts'
import { addressReadAs, normalizeAddress, parseDateParam, parseDateRange } from './wallet-query.ts'

const failure = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (error instanceof WdsError) return { code: error.code, param: error.param }
    throw error
  }
  throw new Error('did not fail')
}

test('parseDateParam() reads dates as UTC days and date-times with their offset', () => {
  expect(parseDateParam('2025-01-31', 'fromDate')).toEqual({ instant: new Date('2025-01-31T00:00:00Z'), dateOnly: true })
  expect(parseDateParam('2025-01-31T12:00:00+02:00', 'fromDate')).toEqual({
    instant: new Date('2025-01-31T10:00:00Z'),
    dateOnly: false,
  })
  for (const bad of ['2025-02-30', '31/01/2025', '2025-01-31T12:00', 'today', '']) {
    expect(failure(() => parseDateParam(bad, 'toDate'))).toEqual({ code: 'invalid_parameter', param: 'toDate' })
  }
})

test('parseDateRange() makes a date-only toDate include its whole day and checks the range', () => {
  expect(parseDateRange('2025-01-01', '2025-01-31')).toEqual({
    fromDate: new Date('2025-01-01T00:00:00Z'),
    toDateExclusive: new Date('2025-02-01T00:00:00Z'),
  })
  expect(parseDateRange(undefined, '2025-01-31T10:00:00Z').toDateExclusive).toEqual(new Date('2025-01-31T10:00:00.001Z'))
  expect(parseDateRange('2025-01-01', '2026-01-01').fromDate).toBeDefined()
  expect(failure(() => parseDateRange('2025-01-01', '2026-01-02'))).toEqual({ code: 'date_range_too_large', param: 'toDate' })
  expect(failure(() => parseDateRange('2025-02-01', '2025-01-31'))).toEqual({ code: 'invalid_parameter', param: 'fromDate' })
})

test('normalizeAddress() lower-cases EVM addresses and names the parameter when malformed', () => {
  const ethereum = findChain('ethereum')
  if (ethereum === undefined) throw new Error('no ethereum')
  expect(normalizeAddress(`0x${'AB'.repeat(20)}`, [ethereum])).toBe(`0x${'ab'.repeat(20)}`)
  expect(failure(() => normalizeAddress('0x12', [ethereum], 'asset'))).toEqual({ code: 'invalid_address', param: 'asset' })
  // mixed case is an EIP-55 checksum: a wrong one is refused, not read as another (empty) address
  expect(normalizeAddress('0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', [ethereum])).toBe(
    '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
  )
  expect(failure(() => normalizeAddress('0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96046', [ethereum]))).toEqual({
    code: 'invalid_address',
    param: 'address',
  })
  expect(() => normalizeAddress('0x123', [ethereum])).toThrow(
    'address "0x123" is not an address of Ethereum (0x-prefixed 20-byte hex, e.g. 0xd8da6bf26964af9d7eed9e03e53415d37aa96045)',
  )
})

test('addressReadAs() names every format that reads the address: a truncated 0x address is Move-only', () => {
  expect(addressReadAs('0x123')).toEqual(['move'])
  // lower-case, it is also a NEAR account name (NEAR's implicit accounts for Ethereum keys are 0x + 40 hex)
  expect(addressReadAs('0xd8da6bf26964af9d7eed9e03e53415d37aa96045')).toEqual(['evm', 'near', 'move'])
  expect(addressReadAs('0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045')).toEqual(['evm', 'move'])
  // mixed case failing its EIP-55 checksum is no EVM address (Move addresses carry no checksum)
  expect(addressReadAs('0xD8dA6BF26964aF9D7eEd9e03E53415D37aA96045')).toEqual(['move'])
  expect(addressReadAs('TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7')).toEqual(['tron'])
  expect(addressReadAs('root.near')).toEqual(['near'])
  expect(addressReadAs('not an address')).toEqual([])
})

test('parseDateParam() refuses dates and times that do not exist instead of rolling them over', () => {
  for (const value of [
    '2024-02-30T00:00:00Z',
    '2023-02-29T12:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:60:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01T12:00:00+24:00',
    '2024-13-01',
  ])
    expect(() => parseDateParam(value, 'fromDate'), value).toThrow('fromDate must be an ISO 8601 date')
  expect(parseDateParam('2024-02-29T23:59:59.5+01:00', 'toDate').instant.toISOString()).toBe('2024-02-29T22:59:59.500Z')
})
