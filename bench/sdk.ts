/**
 * SDK iterator vs raw HTTP pages, in each language, on one wallet history served by a real WDS
 * (scripts/sdk-harness.ts: anvil + wds start). Both walk every page of /v1/wallets/{a}/transfers with
 * the same page size, in the same run, alternating which goes first; the best of the rounds counts.
 *
 *   npm run bench:sdk [-- --records 100000 --limit 1000 --rounds 3]
 *
 * Writes bench/results/sdk.json.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const root = join(import.meta.dirname, '..')
const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    limit: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
  },
})

const log = (message: string) => process.stderr.write(`bench:sdk: ${message}\n`)
log('preparing the Python venv and the Java classes')
execFileSync(join(root, 'scripts/python-venv.sh'), { stdio: ['ignore', 'ignore', 'inherit'] })
const javaDir = join(root, 'sdks/java')
execFileSync('mvn', ['-B', '-q', 'compile'], { cwd: javaDir, stdio: 'inherit' })
const work = mkdtempSync(join(tmpdir(), 'wds-bench-sdk-'))
const cpFile = join(work, 'classpath.txt')
execFileSync('mvn', ['-B', '-q', 'dependency:build-classpath', `-Dmdep.outputFile=${cpFile}`], { cwd: javaDir, stdio: 'inherit' })
const outFile = join(work, 'measurements.json')

const started = Date.now()
const run = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    join(root, 'scripts/sdk-harness.ts'),
    '--records',
    String(values.records),
    '--',
    process.execPath,
    '--import',
    'tsx',
    join(root, 'bench/sdk/measure.ts'),
    outFile,
    String(values.limit),
    String(values.rounds),
    `${join(javaDir, 'target/classes')}:${readFileSync(cpFile, 'utf8').trim()}`,
  ],
  { cwd: root, stdio: 'inherit' },
)
if (run.status !== 0) {
  rmSync(work, { recursive: true, force: true })
  throw new Error(`the benchmark failed (exit ${run.status})`)
}
const measurements = JSON.parse(readFileSync(outFile, 'utf8'))
rmSync(work, { recursive: true, force: true })
const result = {
  benchmark: 'sdk-iterator-vs-raw-pages',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  records: Number(values.records),
  pageSize: Number(values.limit),
  rounds: Number(values.rounds),
  wallClockSeconds: Math.round((Date.now() - started) / 1000),
  ...measurements,
}
writeFileSync(join(root, 'bench/results/sdk.json'), `${JSON.stringify(result, null, 2)}\n`)
log(`written to bench/results/sdk.json`)
for (const [language, m] of Object.entries(
  measurements.languages as Record<string, { rawRecordsPerSecond: number; sdkRecordsPerSecond: number; ratio: number }>,
)) {
  log(
    `${language}: raw ${Math.round(m.rawRecordsPerSecond)}/s, SDK ${Math.round(m.sdkRecordsPerSecond)}/s, SDK/raw ${m.ratio.toFixed(3)}`,
  )
}
