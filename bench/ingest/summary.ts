import type { CpuReport } from './cpu-usage.ts'
import type { BareFetchRun } from './run-bare-fetch.ts'
import type { BarePipelineRun } from './run-bare-pipeline.ts'
import type { IndexerRun } from './run-indexer.ts'
import type { PonderRun } from './run-ponder.ts'
import type { StoreOnlyRun } from './run-store-only.ts'

export const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null)

type Summarised = {
  chain: { blocks: number; transactions: number; transfers: { total: number; erc20: number } }
  runs: {
    indexer: IndexerRun
    bareFetch: BareFetchRun
    barePipeline: BarePipelineRun
    storeOnly: StoreOnlyRun | undefined
    profiled: IndexerRun | undefined
    ponder: PonderRun | undefined
  }
  ratios: Record<string, number | null>
}

const n = (x: number | undefined) => (x === undefined ? '' : Math.round(x).toLocaleString('en-US'))
/** CPU seconds per process, and the other processes' if they took more than 5% of the machine (a disturbed run). */
const cpu = ({ seconds, otherSeconds, otherShare }: CpuReport) =>
  [...Object.entries(seconds), ...(otherShare > 0.05 ? [['OTHER', otherSeconds] as const] : [])]
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ')

/** A short table on stdout; the JSON has everything. */
export function printSummary({ chain, runs, ratios }: Summarised): void {
  const rows: [string, string, string, string, string, string][] = [['run', 'seconds', 'blocks/s', 'transfers/s', 'ok', 'CPU s']]
  const { indexer, bareFetch, barePipeline, storeOnly, ponder, profiled } = runs
  const profile = profiled?.profile
  rows.push([
    '(i) indexer, every row kind',
    indexer.wallSeconds.toFixed(1),
    n(indexer.blocksPerSecond),
    n(indexer.transfersPerSecond),
    String(indexer.correct),
    cpu(indexer.cpu),
  ])
  for (const [kind, r] of Object.entries(bareFetch.each)) {
    rows.push([
      `(ii) bare fetch: ${kind}`,
      r.wallSeconds.toFixed(1),
      n(r.blocksPerSecond),
      `${Object.entries(r.itemsPerSecond)
        .map(([k, v]) => `${n(v)} ${k === 'blocks' || k === 'headers' ? 'txs' : k}/s`)
        .join(' ')}, ${r.answerMB} MB`,
      '',
      cpu(r.cpu),
    ])
  }
  for (const [label, r] of [
    ['(ii) bare fetch: logs+blocks+receipts+traces', bareFetch.all],
    ['(ii) bare fetch: headers+receipts+traces', bareFetch.lean],
  ] as const) {
    rows.push([
      label,
      r.wallSeconds.toFixed(1),
      n(r.blocksPerSecond),
      `${r.answerMB} MB, ${r.answerMBPerSecond} MB/s`,
      '',
      cpu(r.cpu),
    ])
  }
  rows.push([
    '(iii) bare getLogs→COPY, ERC-20',
    barePipeline.wallSeconds.toFixed(1),
    n(barePipeline.blocksPerSecond),
    n(barePipeline.transfersPerSecond),
    String(barePipeline.correct),
    cpu(barePipeline.cpu),
  ])
  if (ponder !== undefined) {
    if ('skipped' in ponder) rows.push(['(iv) ponder', 'skipped', '', '', '', String(ponder.skipped).slice(0, 60)])
    else {
      rows.push([
        `(iv) ponder ${ponder.version}, token rows`,
        ponder.wallSeconds.toFixed(1),
        n(ponder.blocksPerSecond),
        `${n(ponder.transfersPerSecond)} (${n(ponder.eventsPerSecond)} events/s)`,
        String(ponder.correct),
        cpu(ponder.cpu),
      ])
    }
  }
  if (storeOnly !== undefined) {
    for (const r of [storeOnly.indexed, storeOnly.deferred]) {
      rows.push([
        `(v) appendBlocks only, address indexes ${r.addressIndexes}`,
        r.totalSeconds.toFixed(1),
        n(r.blocksPerSecond),
        n(r.rowsPerSecond),
        '',
        cpu(r.cpu),
      ])
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0))) ?? []
  console.log(
    `\nchain: ${n(chain.blocks)} blocks, ${n(chain.transactions)} transactions, ${n(chain.transfers.total)} transfers (${n(chain.transfers.erc20)} ERC-20)\n`,
  )
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '))
  console.log(
    '\nratios:',
    Object.entries(ratios)
      .map(([k, v]) => `${k} ${v ?? '–'}`)
      .join(', '),
  )
  const { packed, textLayout } = indexer.storage.bytesPerTransfer
  console.log(
    `storage per transfer: ${packed.total} bytes (heap ${packed.heap} + indexes ${packed.indexes}); the text layout before ` +
      `migration 0024: ${textLayout.total} (${textLayout.heap} + ${textLayout.indexes}); ${indexer.storage.packedOverText}×`,
  )
  const s = indexer.stages
  console.log(
    `indexer time: wall ${s.wallSeconds} s = appendBlocks ${s.criticalPath.appendBlocksSeconds} s + other store ${s.criticalPath.otherStoreSeconds} s + waiting for fetch ${s.criticalPath.waitingForFetchSeconds} s; ` +
      `fetch busy ${s.fetch.busySeconds} s (mean ${s.fetch.meanRangesInFlight} ranges in flight), assemble ${s.fetch.assembleSeconds} s; event loop ${Math.round(indexer.eventLoopUtilization * 100)}% busy`,
  )
  if (profile !== undefined) {
    console.log(
      `main thread (profile): ${Object.entries(profile.stages)
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join(', ')}`,
    )
  }
}
