import { afterAll, beforeAll, expect, test } from 'vitest'
import { copyChunks, withTransaction } from '../../src/store/db.ts'
import { pack } from '../../src/store/packed-text.ts'
import { BinaryCopyRows } from '../../src/store/row-encoding.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/**
 * COPY's binary format as BinaryCopyRows writes it, read by a real PostgreSQL: every value comes back
 * exactly as the text format (and SQL) would have stored it, at the edges of each type.
 */

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database?.drop())

/** Writes `rows` (each one value) into a one-column table of `type` by binary COPY; reads them back as text. */
async function roundTrip(type: string, write: (rows: BinaryCopyRows, index: number) => void, count: number) {
  return withTransaction(database.db, async (client) => {
    await client.query(`CREATE TEMP TABLE t (n int, v ${type}) ON COMMIT DROP`)
    const rows = new BinaryCopyRows()
    const chunks: Buffer[] = []
    for (let i = 0; i < count; i++) {
      rows.row(2).int4(i)
      write(rows, i)
      chunks.push(...rows.take())
    }
    chunks.push(...rows.take(true))
    await copyChunks(client, 'COPY t (n, v) FROM STDIN WITH (FORMAT binary)', chunks)
    const { rows: read } = await client.query<{ v: string | null }>('SELECT v::text AS v FROM t ORDER BY n')
    return read.map((r) => r.v)
  })
}

test('numeric: integers of every size, with zero groups anywhere, and negatives, exactly', async () => {
  const values = [
    0n,
    1n,
    9_999n,
    10_000n,
    10_001n,
    100_000_000n,
    123_400_000_000n,
    1_000_000_000_000_000_000n,
    10n ** 77n,
    2n ** 256n - 1n,
    -5n,
    -(10n ** 20n),
    50_000_000_000_000_000_000_000n,
  ]
  expect(await roundTrip('numeric(78,0)', (rows, i) => rows.numeric(values[i] as bigint), values.length)).toEqual(
    values.map(String),
  )
})

test('bigint, integer and null', async () => {
  const values = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 21_000_000]
  expect(await roundTrip('bigint', (rows, i) => rows.int8(values[i] as number), values.length)).toEqual(values.map(String))
  expect(await roundTrip('integer', (rows, i) => (i === 1 ? rows.null() : rows.int4(i * 1000)), 3)).toEqual(['0', null, '2000'])
  expect(() => new BinaryCopyRows().int8(2 ** 53)).toThrow(RangeError)
})

test('timestamptz from Unix seconds, before and after PostgreSQL’s 2000 epoch', async () => {
  const seconds = [0, 946_684_799, 946_684_800, 1_438_269_973, 1_700_000_000, 4_102_444_800]
  const read = await roundTrip('timestamptz', (rows, i) => rows.timestamptz(seconds[i] as number), seconds.length)
  expect(read.map((v) => new Date(v as string).getTime() / 1000)).toEqual(seconds)
})

test('packed bytea: the same bytes as pack() (hex of each case, base58, bech32, UTF-8, empty)', async () => {
  const texts = [
    '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    `0x${'ab'.repeat(32)}`,
    '0x',
    'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16',
    'E3D5B4F0C1A2',
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    'addr_é',
    '',
  ]
  const read = await roundTrip('bytea', (rows, i) => rows.packed(texts[i] as string), texts.length)
  expect(read).toEqual(texts.map((t) => `\\x${pack(t).toString('hex')}`))
})

test('text and jsonb, multi-byte characters included, across chunk boundaries', async () => {
  const long = 'ü'.repeat(200_000) // 400,000 bytes: more than a chunk
  const texts = ['ethereum', 'erc20', long, 'ħ']
  expect(await roundTrip('text', (rows, i) => rows.text(texts[i] as string), texts.length)).toEqual(texts)
  const json = '[{"address":"bc1qxy","value":"5000"},{"address":"é","value":"1"}]'
  const [stored] = await roundTrip('jsonb', (rows) => rows.jsonb(json), 1)
  expect(JSON.parse(stored as string)).toEqual(JSON.parse(json))
})
