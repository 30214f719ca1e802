import { expect, test } from 'vitest'
import { parseEcbHistoryCsv } from './ecb-csv.ts'

test('parseEcbHistoryCsv() reads the ECB history format: N/A cells left out, trailing comma ignored', () => {
  const csv = ['Date,USD,JPY,BGN,TRL,', '2026-01-02,1.1721,183.94,N/A,N/A,', '1999-01-04,1.1789,133.73,N/A,372274,', ''].join(
    '\n',
  )
  expect(parseEcbHistoryCsv(csv)).toEqual([
    {
      date: '2026-01-02',
      rates: new Map([
        ['USD', '1.1721'],
        ['JPY', '183.94'],
      ]),
    },
    {
      date: '1999-01-04',
      rates: new Map([
        ['USD', '1.1789'],
        ['JPY', '133.73'],
        ['TRL', '372274'],
      ]),
    },
  ])
})

test('parseEcbHistoryCsv() reads the daily eurofxref.csv: spaces after commas, a long date', () => {
  expect(parseEcbHistoryCsv('Date, USD, JPY, \n13 April 2026, 1.1684, 186.75, \n')).toEqual([
    {
      date: '2026-04-13',
      rates: new Map([
        ['USD', '1.1684'],
        ['JPY', '186.75'],
      ]),
    },
  ])
})

test('parseEcbHistoryCsv() accepts CRLF lines', () => {
  expect(parseEcbHistoryCsv('Date,USD,\r\n2024-02-29,1.0826,\r\n')).toEqual([
    { date: '2024-02-29', rates: new Map([['USD', '1.0826']]) },
  ])
})

test('parseEcbHistoryCsv() refuses a file that is not the ECB format', () => {
  expect(() => parseEcbHistoryCsv('Datum,USD,\n2024-02-29,1.0826,')).toThrow(/expected "Date"/)
  expect(() => parseEcbHistoryCsv('Date,USD,\n2024/02/29,1.0826,')).toThrow(/line 2/)
  expect(() => parseEcbHistoryCsv('Date,USD,\n2024-02-29,-1.08,')).toThrow(/not a decimal/)
})
