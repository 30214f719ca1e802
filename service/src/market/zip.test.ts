import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import { expect, test } from 'vitest'
import { extractSingleFile } from './zip.ts'

const FIXTURES = join(import.meta.dirname, '../../test/fixtures/ecb')

test('extractSingleFile() unpacks the deflated CSV of an ECB-style archive', () => {
  expect(extractSingleFile(readFileSync(join(FIXTURES, 'eurofxref.zip')))).toEqual({
    name: 'eurofxref.csv',
    data: readFileSync(join(FIXTURES, 'eurofxref.csv')),
  })
})

test('extractSingleFile() refuses what is not a ZIP archive', () => {
  expect(() => extractSingleFile(deflateRawSync(Buffer.from('Date,USD,')))).toThrow(/not a ZIP archive/)
})
