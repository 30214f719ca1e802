import { type ChildProcess, spawn } from 'node:child_process'
import { findFreePort } from '../../src/lib/free-port.ts'

export type RedisServer = {
  url: string
  port: number
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>
  /** Starts it again on the same port, empty (nothing is saved). */
  restart(): Promise<void>
}

/**
 * A real `redis-server` (the Debian package; `npm test` installs it when missing) on a free loopback
 * port, with nothing written to disk. One per test file: stop it in afterAll.
 */
export async function startRedis(): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort()
    try {
      let child = await spawnRedis(port)
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        stop: () => stopRedis(child),
        async restart() {
          child = await spawnRedis(port)
        },
      }
    } catch (error) {
      // another process may have taken the port between asking and binding
      if (attempt >= 3) throw error
    }
  }
}

function spawnRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        resolve(child)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk) => (output += chunk))
    child.once('error', (error) =>
      reject(
        new Error(
          `could not run redis-server (install it: scripts/ensure-debian-packages.sh redis-server:redis-server): ${error.message}`,
        ),
      ),
    )
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready:\n${output}`)))
  })
}

function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
