import { describe, expect, test } from 'vitest'
import { UpstreamError } from '../../lib/errors.ts'
import { isMethodUnavailable, isRangeTooLarge, RpcError, shouldRetry } from './evm-rpc.ts'

const httpStatus = (status: number) => new UpstreamError(`HTTP ${status}`, { failure: 'status', upstreamStatus: status })

describe('shouldRetry()', () => {
  test('retries overloaded or failing transports', () => {
    expect(shouldRetry(httpStatus(429))).toBe(true)
    expect(shouldRetry(httpStatus(503))).toBe(true)
    expect(shouldRetry(new UpstreamError('no answer within 15000 ms', { failure: 'timeout' }))).toBe(true)
    expect(shouldRetry(httpStatus(401))).toBe(false)
  })

  test('retries node-side JSON-RPC errors but not wrong requests, reverts or oversized ranges', () => {
    expect(shouldRetry(new RpcError(-32603, 'internal error'))).toBe(true)
    expect(shouldRetry(new RpcError(-32000, 'header not found'))).toBe(true)
    expect(shouldRetry(new RpcError(-32601, 'the method trace_block does not exist'))).toBe(false)
    expect(shouldRetry(new RpcError(3, 'execution reverted'))).toBe(false)
    expect(shouldRetry(new RpcError(-32005, 'query returned more than 10000 results'))).toBe(false)
    expect(shouldRetry(new Error('a bug'))).toBe(false)
  })
})

test('isRangeTooLarge() knows the providers’ wordings', () => {
  for (const message of [
    'query returned more than 10000 results',
    'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
    'block range is too large',
    'exceed maximum block range: 5000',
  ]) {
    expect([message, isRangeTooLarge(new RpcError(-32000, message))]).toEqual([message, true])
  }
  expect(isRangeTooLarge(new RpcError(-32000, 'header not found'))).toBe(false)
})

describe('isMethodUnavailable', () => {
  test('recognises the ways nodes say they do not offer a method', () => {
    const unavailable = [
      new RpcError(-32601, 'the method trace_block does not exist/is not available'), // geth
      new RpcError(-32601, 'Method not found'), // anvil, erigon
      new RpcError(-32604, 'Method trace_block is not enabled'), // nethermind-style
      new RpcError(-32600, 'Unsupported method: trace_block. See available methods at https://docs.alchemy.com'),
      new RpcError(-32000, 'method not allowed'),
    ]
    expect(unavailable.map(isMethodUnavailable)).toEqual(unavailable.map(() => true))
  })

  test('a passing failure of a call is not that', () => {
    const failures = [
      new RpcError(-32000, 'header not found'),
      new RpcError(-32603, 'internal error'),
      new RpcError(-32005, 'limit exceeded'),
      httpStatus(503),
    ]
    expect(failures.map(isMethodUnavailable)).toEqual(failures.map(() => false))
  })
})
