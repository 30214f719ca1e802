/**
 * export() through the real service (scripts/sdk-harness.ts): the file it writes is the endpoint's
 * answer byte for byte, to a path or a stream, and a refusal (problem+json) throws its error class.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, test } from 'vitest'
import { InvalidParameterError, WdsClient, type WdsError } from '../src/index.ts'
import { harness } from './harness.ts'

const client = new WdsClient({ baseUrl: harness.baseUrl, apiKey: harness.apiKey })
const wallet = harness.wallet

async function rawExport(query: string): Promise<string> {
  const answer = await fetch(`${harness.baseUrl}/v1/wallets/${wallet}/export?${query}`, {
    headers: { 'X-API-Key': harness.apiKey },
  })
  expect(answer.status).toBe(200)
  return answer.text()
}

describe('wallets.export', () => {
  test('streams the CSV to a file: the endpoint’s answer, with its file name', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'wds-sdk-export-')), 'koinly.csv')
    const result = await client.wallets.export(wallet, { format: 'koinly', chain: 'ethereum' }, path)
    const written = await readFile(path, 'utf8')
    expect(written).toBe(await rawExport('format=koinly&chain=ethereum'))
    expect(written.split('\r\n').length).toBeGreaterThan(2)
    expect(result.bytes).toBe(Buffer.byteLength(written))
    expect(result.fileName).toBe(`wds_koinly_${wallet}_ethereum.csv`)
    expect(result.response.status).toBe(200)
  })

  test('streams to a writer, left open', async () => {
    const writer = new PassThrough()
    const chunks: Buffer[] = []
    writer.on('data', (chunk: Buffer) => chunks.push(chunk))
    await client.wallets.export(wallet, { format: 'wds', chain: 'ethereum', fromDate: '2020-01-01' }, writer)
    expect(writer.writableEnded).toBe(false)
    expect(Buffer.concat(chunks).toString('utf8')).toBe(await rawExport('format=wds&chain=ethereum&fromDate=2020-01-01'))
  })

  test('a problem+json answer throws its class, naming the parameter', async () => {
    const error = await client.wallets.export(wallet, { format: 'excel' as 'wds' }, new PassThrough()).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(InvalidParameterError)
    expect((error as WdsError).status).toBe(400)
    expect((error as WdsError).detail).toMatch(/format/)
  })
})
