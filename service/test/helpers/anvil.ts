import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'

const require = createRequire(import.meta.url)

/** The anvil binary that npm installed for this platform (via @foundry-rs/anvil's optional dependencies). */
export function anvilBinary(): string {
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'anvil')
}

export type Anvil = {
  url: string
  port: number
  process: ChildProcess
  /** A JSON-RPC call straight to the node (test set-up and checks, not the code under test). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  close(): Promise<void>
}

export type AnvilOptions = {
  chainId?: number
  /** Extra command-line arguments, e.g. ['--prune-history'] or ['--load-state', file]. */
  args?: string[]
  /** The port to listen on (default: a free one): another node on the URL of one closed before. */
  port?: number
}

/** Starts a real anvil node on a free loopback port; resolves once it listens. */
export async function startAnvil({ chainId = 1, args = [], port: listenOn = 0 }: AnvilOptions = {}): Promise<Anvil> {
  const child = spawn(
    anvilBinary(),
    ['--host', '127.0.0.1', '--port', String(listenOn), '--chain-id', String(chainId), ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    lines.on('line', (line) => {
      const match = /^Listening on [\d.]+:(\d+)/.exec(line)
      if (match) {
        lines.removeAllListeners('line')
        child.stdout?.resume() // keep draining so anvil never blocks on a full pipe
        resolve(Number(match[1]))
      }
    })
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code} before listening: ${stderr}`)))
    child.once('error', reject)
  })
  const url = `http://127.0.0.1:${port}`
  let id = 0
  return {
    url,
    port,
    process: child,
    async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      })
      const body = (await response.json()) as { result?: T; error?: { message: string } }
      if (body.error) throw new Error(`${method}: ${body.error.message}`)
      return body.result as T
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** A plain value transfer between two of anvil's unlocked accounts, as `eth_sendTransaction` and `anvil_reorg` take it. */
export const payment = (from: string, to: string, wei: bigint) => ({ from, to, value: `0x${wei.toString(16)}` })

/** Sends a transaction and waits until it is mined (anvil may answer the hash a moment before its receipt exists); its hash. */
export async function sendMined(anvil: Anvil, tx: Record<string, string | undefined>): Promise<string> {
  const hash = await anvil.rpc<string>('eth_sendTransaction', [tx])
  while ((await anvil.rpc('eth_getTransactionReceipt', [hash])) === null) {}
  return hash
}

/** The node's head block number. */
export const headOf = async (anvil: Anvil) => Number(await anvil.rpc<string>('eth_blockNumber'))
