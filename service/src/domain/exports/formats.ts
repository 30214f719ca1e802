import { cointracker } from './cointracker.ts'
import { cointracking } from './cointracking.ts'
import { cryptotaxcalculator } from './cryptotaxcalculator.ts'
import type { ExportFormat } from './format.ts'
import { koinly } from './koinly.ts'
import { taxbit } from './taxbit.ts'
import { tokentax } from './tokentax.ts'
import { wds } from './wds.ts'
import { zenledger } from './zenledger.ts'

/** Every export format by its name (the `format` parameter). */
export const EXPORT_FORMATS = {
  koinly,
  cointracking,
  cointracker,
  cryptotaxcalculator,
  taxbit,
  zenledger,
  tokentax,
  wds,
} as const satisfies Record<string, ExportFormat>

export type ExportFormatName = keyof typeof EXPORT_FORMATS

export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormatName[]
