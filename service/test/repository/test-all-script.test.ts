import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'

/**
 * `npm test` (scripts/test-all.sh) runs every step even after one fails, and fails at the end naming
 * it (issue 37: the SDK suites were skipped after a service failure). Run here with stand-ins for npm
 * and for the commands whose Debian packages it ensures, so that no suite runs and nothing is installed.
 */

const SCRIPT = join(import.meta.dirname, '../../../scripts/test-all.sh')
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** Runs the script with an `npm` that records its arguments and fails for the steps named in `failing`. */
async function runTestAll(failing: string): Promise<{ code: number | null; stdout: string; stderr: string; calls: string[] }> {
  const bin = await mkdtemp(join(tmpdir(), 'wds-test-all-'))
  dirs.push(bin)
  const calls = join(bin, 'calls')
  const npm = `#!/bin/sh\necho "$*" >> ${calls}\ncase "$*" in ${failing}) exit 1 ;; esac\nexit 0\n`
  for (const [name, text] of [
    ['npm', npm],
    ['chromium', '#!/bin/sh\n'],
    ['redis-server', '#!/bin/sh\n'],
    ['litecoind', '#!/bin/sh\n'],
  ]) {
    await writeFile(join(bin, name as string), text as string)
    await chmod(join(bin, name as string), 0o755)
  }
  const child = spawn('sh', [SCRIPT], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { code, stdout, stderr, calls: (await readFile(calls, 'utf8')).trim().split('\n') }
}

test('npm test runs the SDK suites after the service suite failed, then fails naming it', async () => {
  const result = await runTestAll('*--workspace\\ service*')
  expect(result.calls).toEqual(['run check', 'run test --workspace service', 'run test:sdks'])
  expect(result.code).toBe(1)
  expect(result.stdout).toMatch(/check: passed .*\n {2}service: FAILED .*\n {2}sdks: passed/)
  expect(result.stderr).toBe('failed: service\n')
})

test('npm test passes when every step passes', async () => {
  const result = await runTestAll('nothing')
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' })
  expect(result.calls).toHaveLength(3)
})
