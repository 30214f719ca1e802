import { createServer } from 'node:net'

/** A loopback port free at the time of asking (nothing listens on it once this resolves). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/**
 * Undefined when `host:port` can be listened on now, else why not (`EADDRINUSE`, `EACCES`…). Asked before
 * anything slow starts, so that a port in use is reported at once.
 */
export function findPortProblem(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    server.listen(port, host, () => server.close(() => resolve(undefined)))
  })
}
