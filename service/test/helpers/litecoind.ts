import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findFreePort } from '../../src/lib/free-port.ts'

/**
 * A real Litecoin Core node (Debian's `litecoind`, a Bitcoin Core 0.21 fork with the same JSON-RPC)
 * in regtest mode, on free loopback ports and a data directory of its own, stopped with the tests.
 * The project's scripts install it (scripts/ensure-debian-packages.sh litecoind:litecoind).
 */
export type Litecoind = {
  /** The JSON-RPC URL with its user and password, as WDS_RPC_BITCOIN takes it. */
  url: string
  /** Calls the node (on a wallet's endpoint when `wallet` is given); JSON-RPC errors are thrown. */
  call<T>(method: string, params?: unknown[], wallet?: string): Promise<T>
  /** Mines `count` blocks to `address`; the new block hashes. */
  mine(count: number, address: string): Promise<string[]>
  /** Stops the node (as `litecoin-cli stop` does) and starts it again on the same data and ports. */
  restart(): Promise<void>
  stop(): Promise<void>
}

const USER = 'wds'
const PASSWORD = 'regtest-secret'

export async function startLitecoind(): Promise<Litecoind> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wds-litecoind-'))
  const [rpcPort, p2pPort] = [await findFreePort(), await findFreePort()]
  const base = `http://127.0.0.1:${rpcPort}`
  const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
  let child: ChildProcess | undefined

  async function call<T>(method: string, params: unknown[] = [], wallet?: string): Promise<T> {
    const response = await fetch(wallet === undefined ? base : `${base}/wallet/${wallet}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
    })
    const body = (await response.json()) as { result: T; error: { code: number; message: string } | null }
    if (body.error !== null) throw new Error(`${method}: ${body.error.message} (${body.error.code})`)
    return body.result
  }

  async function start(): Promise<void> {
    child = spawn(
      'litecoind',
      [
        '-regtest',
        `-datadir=${dataDir}`,
        `-rpcport=${rpcPort}`,
        `-port=${p2pPort}`,
        `-rpcuser=${USER}`,
        `-rpcpassword=${PASSWORD}`,
        '-rpcbind=127.0.0.1',
        '-rpcallowip=127.0.0.1',
        '-listen=0',
        '-fallbackfee=0.0002',
        '-txindex=0',
        '-server=1',
        '-printtoconsole=0',
      ],
      { stdio: 'ignore' },
    )
    for (let i = 0; i < 300; i++) {
      try {
        await call('getblockchaininfo')
        return
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    throw new Error('litecoind did not start')
  }

  async function stop(): Promise<void> {
    const running = child
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    await call('stop').catch(() => running.kill('SIGTERM'))
    await exited
    child = undefined
  }

  await start()
  return {
    url: `http://${USER}:${PASSWORD}@127.0.0.1:${rpcPort}`,
    call,
    mine: (count, address) => call<string[]>('generatetoaddress', [count, address]),
    async restart() {
      await stop()
      await start()
      // wallets are not loaded again by themselves
      for (const name of ['miner', 'alice', 'bob', 'carol', 'hd']) await call('loadwallet', [name]).catch(() => {})
    },
    async stop() {
      await stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
