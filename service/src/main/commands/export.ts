import { createWriteStream } from 'node:fs'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'

export const EXPORT_USAGE = `  export --address A [--address B]... --format F --out FILE [--chain SLUG] [--from-date D]
         [--to-date D] [--currency CCY] [--url URL] [--key KEY]
                                download an export (docs/exports.md) from a running service to FILE:
                                one address, or a portfolio of several; --url default $WDS_URL or
                                http://localhost:8080, --key default $WDS_API_KEY; a progress line on a terminal`

type ExportIo = {
  env: NodeJS.ProcessEnv
  stderr: NodeJS.WriteStream | { isTTY?: boolean; write(text: string): boolean }
  fetch: typeof fetch
}

/** Counts the CSV lines going through (the header included), for the progress line. */
function lineCounter(onLines: (lines: number) => void) {
  let lines = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      for (const byte of chunk) if (byte === 0x0a) lines += 1
      onLines(lines)
      callback(null, chunk)
    },
  })
}

/** The export's URL: one address, or a portfolio when several are given. */
function exportUrl(base: string, values: Record<string, string | string[] | undefined>): URL {
  const addresses = (values.address as string[] | undefined) ?? []
  const url = new URL(addresses.length === 1 ? `/v1/wallets/${addresses[0]}/export` : '/v1/portfolio/export', base)
  if (addresses.length > 1) for (const address of addresses) url.searchParams.append('address', address)
  const params = { format: 'format', chain: 'chain', 'from-date': 'fromDate', 'to-date': 'toDate', currency: 'currency' }
  for (const [option, param] of Object.entries(params)) {
    const value = values[option]
    if (typeof value === 'string') url.searchParams.set(param, value)
  }
  return url
}

/**
 * `wds export`: asks a running service for an export and writes it to a file as it streams, with
 * the rows written so far on a terminal's stderr. Exit 0 when the whole file arrived, 1 when the
 * service refused (its problem's detail is printed) or the stream broke, 2 on wrong usage.
 */
export async function runExport(
  args: string[],
  io: ExportIo = { env: process.env, stderr: process.stderr, fetch },
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      address: { type: 'string', multiple: true },
      format: { type: 'string' },
      out: { type: 'string' },
      chain: { type: 'string' },
      'from-date': { type: 'string' },
      'to-date': { type: 'string' },
      currency: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
    },
    strict: true,
  })
  const key = values.key ?? io.env.WDS_API_KEY
  if (values.address === undefined || values.format === undefined || values.out === undefined || key === undefined) {
    io.stderr.write(`wds export needs --address, --format, --out and --key (or WDS_API_KEY)\n${EXPORT_USAGE}\n`)
    return 2
  }
  const url = exportUrl(values.url ?? io.env.WDS_URL ?? 'http://localhost:8080', values)
  const response = await io.fetch(url, { headers: { 'x-api-key': key } })
  if (!response.ok || response.body === null) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string; code?: string }
    io.stderr.write(`wds export: ${response.status} ${problem.code ?? ''} ${problem.detail ?? response.statusText}\n`)
    return 1
  }
  let rows = 0
  let shown = 0
  const counter = lineCounter((lines) => {
    rows = lines - 1
    if (io.stderr.isTTY !== true || rows - shown < 1000) return
    shown = rows
    io.stderr.write(`\r${rows.toLocaleString('en-US')} rows`)
  })
  await pipeline(
    Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
    counter,
    createWriteStream(values.out),
  )
  io.stderr.write(
    `${io.stderr.isTTY === true ? '\r' : ''}${rows.toLocaleString('en-US')} ${rows === 1 ? 'row' : 'rows'} written to ${values.out}\n`,
  )
  return 0
}
