import { Writable } from 'node:stream'
import { expect, test, vi } from 'vitest'
import { createLogger } from '../lib/logger.ts'
import { createProgressReporter } from './progress.ts'

/** A reporter logging every 10 s into `lines`, each log line parsed. */
function reporterWithLogLines() {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { lines, progress: createProgressReporter({ logger: createLogger('info', sink), intervalMs: 10_000 }) }
}

test('log lines carry blocks/s, transfers/s and the ETA to the head', () => {
  vi.useFakeTimers({ now: 1_000_000 })
  const { lines, progress } = reporterWithLogLines()
  progress.report({ chain: 'base', indexedBlock: 99, headBlock: 1099, blocks: 100, transfers: 1_000 })
  vi.setSystemTime(1_010_000)
  progress.report({ chain: 'base', indexedBlock: 1099 - 500, headBlock: 1099, blocks: 600, transfers: 6_000 })
  vi.setSystemTime(1_011_000)
  progress.report({ chain: 'base', indexedBlock: 700, headBlock: 1099, blocks: 701, transfers: 7_000 }) // within the interval
  vi.useRealTimers()
  expect(
    lines.map(({ chain, indexed_block, head_block, blocks_per_s, transfers_per_s, eta_s }) => ({
      chain,
      indexed_block,
      head_block,
      blocks_per_s,
      transfers_per_s,
      eta_s,
    })),
  ).toEqual([
    // the first report starts the clock
    { chain: 'base', indexed_block: 99, head_block: 1099, blocks_per_s: 0, transfers_per_s: 0, eta_s: null },
    { chain: 'base', indexed_block: 599, head_block: 1099, blocks_per_s: 50, transfers_per_s: 500, eta_s: 10 },
  ])
})

test('on a terminal, a bar per chain with the same figures, redrawn in place', () => {
  vi.useFakeTimers({ now: 1_000_000 })
  let written = ''
  const tty = { write: (text: string) => (written += text) } as unknown as NodeJS.WriteStream
  const progress = createProgressReporter({ logger: createLogger('silent'), tty })
  progress.report({ chain: 'ethereum', indexedBlock: 0, headBlock: 100, blocks: 0, transfers: 0 })
  progress.report({ chain: 'base', indexedBlock: 0, headBlock: 10, blocks: 0, transfers: 0 })
  vi.setSystemTime(1_002_000)
  progress.report({ chain: 'ethereum', indexedBlock: 100, headBlock: 100, blocks: 100, transfers: 400 })
  vi.useRealTimers()
  // what the terminal shows: replay the cursor-up moves over the lines written
  const screen: string[] = []
  let row = 0
  const visible = written.replaceAll('\u001b', '~') // the escape character, spelled out for the patterns below
  for (const part of visible.split(/(~\[\d+A\r|~\[2K|\n)/).filter(Boolean)) {
    const up = /^~\[(\d+)A\r$/.exec(part)
    if (up) row -= Number(up[1])
    else if (part === '\n') row++
    else if (part !== '~[2K') screen[row] = part
  }
  expect(screen).toHaveLength(2)
  expect(screen[0]).toMatch(/^ethereum\s+█{30} 100\.0% {2}block 100\/100 {2}50 blocks\/s {2}200 transfers\/s {2}ETA 0s$/)
  expect(screen[1]).toMatch(/^base\s+░{30} {3}0\.0% {2}block 0\/10 {2}0 blocks\/s {2}0 transfers\/s {2}ETA \?s$/)
})

test('finish() writes one summary per chain: totals of the run and average rates since the reporter was made', () => {
  vi.useFakeTimers({ now: 1_000_000 })
  const { lines, progress } = reporterWithLogLines()
  vi.setSystemTime(1_002_000)
  progress.report({ chain: 'base', indexedBlock: 99, headBlock: 199, blocks: 100, transfers: 1_000 })
  vi.setSystemTime(1_004_000)
  progress.report({ chain: 'base', indexedBlock: 199, headBlock: 199, blocks: 200, transfers: 3_000 }, true)
  lines.length = 0
  progress.finish()
  vi.useRealTimers()
  expect(lines).toEqual([
    expect.objectContaining({
      msg: 'backfill summary',
      chain: 'base',
      indexed_block: 199,
      head_block: 199,
      blocks: 200,
      transfers: 3_000,
      duration_s: 4,
      blocks_per_s: 50,
      transfers_per_s: 750,
    }),
  ])
})
