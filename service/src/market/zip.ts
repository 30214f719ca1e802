import { inflateRawSync } from 'node:zlib'
import { UpstreamError } from '../lib/errors.ts'

const END_OF_CENTRAL_DIRECTORY = 0x06054b50
const CENTRAL_FILE_HEADER = 0x02014b50
const LOCAL_FILE_HEADER = 0x04034b50

/**
 * The one file of a single-entry ZIP archive (the ECB's `eurofxref*.zip`), stored or deflated. Sizes
 * are read from the central directory, so archives written with data descriptors work too. No ZIP64.
 */
export function extractSingleFile(zip: Buffer): { name: string; data: Buffer } {
  const minEnd = Math.max(0, zip.length - 22 - 0xffff)
  let end = -1
  for (let i = zip.length - 22; i >= minEnd; i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i
      break
    }
  }
  if (end < 0) throw new UpstreamError('not a ZIP archive (no end of central directory)', { failure: 'malformed' })
  const entries = zip.readUInt16LE(end + 10)
  if (entries !== 1) throw new UpstreamError(`expected a ZIP archive with one file, it has ${entries}`, { failure: 'malformed' })
  const central = zip.readUInt32LE(end + 16)
  if (zip.readUInt32LE(central) !== CENTRAL_FILE_HEADER)
    throw new UpstreamError('ZIP central directory is damaged', { failure: 'malformed' })
  const method = zip.readUInt16LE(central + 10)
  const compressedSize = zip.readUInt32LE(central + 20)
  const size = zip.readUInt32LE(central + 24)
  const name = zip.toString('utf8', central + 46, central + 46 + zip.readUInt16LE(central + 28))
  const local = zip.readUInt32LE(central + 42)
  if (zip.readUInt32LE(local) !== LOCAL_FILE_HEADER)
    throw new UpstreamError('ZIP local file header is damaged', { failure: 'malformed' })
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
  const body = zip.subarray(start, start + compressedSize)
  const data = method === 0 ? Buffer.from(body) : method === 8 ? inflateRawSync(body) : undefined
  if (data === undefined) throw new UpstreamError(`ZIP compression method ${method} is not supported`, { failure: 'malformed' })
  if (data.length !== size)
    throw new UpstreamError(`ZIP entry ${name}: expected ${size} bytes, got ${data.length}`, { failure: 'malformed' })
  return { name, data }
}
