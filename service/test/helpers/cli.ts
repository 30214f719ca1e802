import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { join } from 'node:path'

export const WDS_BIN = join(import.meta.dirname, '../../bin/wds.js')

/** The environment of a test CLI run: nothing from the developer's own WDS settings leaks in, and no daily market sync. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(WDS_|DATABASE_|REDIS_URL|SMTP_URL|PORT|HOST|LOG_LEVEL|INIT_CWD|COINGECKO_|STRIPE_)/.test(name)) env[name] = value
  }
  // No daily market sync unless a test asks for one: tests never reach the real ECB or Binance.
  return { ...env, WDS_MARKET_SYNC_AT: 'off', ...extra }
}

export type CliResult = { code: number | null; stdout: string; stderr: string }

export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WDS_BIN, ...args], { env, cwd })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

export type RunningService = {
  child: ChildProcessWithoutNullStreams
  url: string
  output: () => string
  exited: Promise<number | null>
}

/**
 * Starts `wds start` (or `wds serve`) and resolves once it listens. `timeoutMs` is a last resort
 * against a hang, not a margin: a first start's PostgreSQL took 32 s at a load average of 27.
 */
export function startService(
  env: NodeJS.ProcessEnv,
  timeoutMs = 240_000,
  command: 'start' | 'serve' = 'start',
): Promise<RunningService> {
  const child = spawn(process.execPath, [WDS_BIN, command], { env })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wds start did not listen in time:\n${output}`)), timeoutMs)
    exited.then((code) => reject(new Error(`wds start exited with ${code}:\n${output}`)))
    const onData = (chunk: Buffer) => {
      output += chunk
      const line = output.split('\n').find((l) => l.includes('"msg":"listening"'))
      if (line === undefined || !output.includes('WDS listening on')) return
      const { port } = JSON.parse(line) as { port: number }
      clearTimeout(timer)
      resolve({ child, url: `http://127.0.0.1:${port}`, output: () => output, exited })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
  })
}
