import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (a PostgreSQL or PgBouncer port) that can stall: a
 * network partition as the client sees it. While stalled it still accepts connections, but forwards
 * nothing in either direction, not even a close, and keeps every socket open; what it held back is
 * delivered in order when it resumes (TCP retransmitting across a partition that heals before the
 * connection gives up), the server's consecutive answers in one write.
 */
export type StallProxy = {
  /** Where clients connect: `127.0.0.1:<port>`. */
  host: string
  port: number
  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string
  stall(): void
  resume(): void
  /** What the servers sent since the last stall() and the proxy holds back (all connections, in arrival order). */
  heldFromServers(): Buffer
  /** Drops every open connection at once (a node restarted, a reset network); new ones are accepted. */
  cut(): void
  /** The open connections go silent for good, neither forwarding nor closing (a dead peer behind NAT); new ones work. */
  silence(): void
  readonly stalled: boolean
  /** Connections accepted so far, and open now. */
  stats(): { accepted: number; open: number }
  close(): Promise<void>
}

export async function startStallProxy(target: { host: string; port: number }): Promise<StallProxy> {
  let stalled = false
  let accepted = 0
  let heldFromServers: Buffer[] = []
  /** What each connection held back while stalled, in order; run on resume. */
  const held = new Set<(() => void)[]>()
  const sockets = new Set<Socket>()
  /** Silences each open connection. */
  const silencers = new Set<() => void>()

  const server = createServer((client) => {
    accepted++
    sockets.add(client)
    const pending: (() => void)[] = []
    held.add(pending)
    let silent = false
    const silence = () => {
      silent = true
    }
    silencers.add(silence)
    /** Runs `action` now, or on resume when stalled (after what was held before it); a silenced connection drops it. */
    const pass = (action: () => void) => {
      if (silent) return
      if (stalled || pending.length > 0) pending.push(action)
      else action()
    }
    /** The latest write to the client held back: what the server sends next joins it while nothing else is held after it. */
    let heldWrite: { chunks: Buffer[]; action: () => void } | undefined
    /** Consecutive answers held back go out as one write, read at once on the client (TCP after a partition heals). */
    const toClient = (chunk: Buffer) => {
      if (heldWrite !== undefined && pending.at(-1) === heldWrite.action) {
        heldWrite.chunks.push(chunk)
        return
      }
      const chunks = [chunk]
      const action = () => client.write(Buffer.concat(chunks))
      heldWrite = { chunks, action }
      pass(action)
    }
    let upstream: Socket | undefined
    const open = () => {
      upstream = createConnection(target)
      sockets.add(upstream)
      const to = upstream
      to.on('data', (chunk: Buffer) => {
        if (stalled) heldFromServers.push(chunk)
        toClient(chunk)
      })
      to.on('end', () => pass(() => client.end()))
      to.on('error', () => {})
      to.on('close', () => {
        sockets.delete(to)
        pass(() => client.destroy())
      })
    }
    // the upstream connection is opened when the proxy passes: a stalled one forwards nothing, not even a SYN
    pass(open)
    client.on('data', (chunk) => pass(() => upstream?.write(chunk)))
    client.on('end', () => pass(() => upstream?.end()))
    client.on('error', () => {})
    client.on('close', () => {
      sockets.delete(client)
      silencers.delete(silence)
      pass(() => {
        upstream?.destroy()
        held.delete(pending)
      })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    host: '127.0.0.1',
    port,
    rewrite(url) {
      const parsed = new URL(url)
      parsed.hostname = '127.0.0.1'
      parsed.port = String(port)
      return parsed.toString()
    },
    stall() {
      stalled = true
      heldFromServers = []
    },
    heldFromServers: () => Buffer.concat(heldFromServers),
    resume() {
      stalled = false
      for (const pending of [...held]) {
        // an action may add to its own connection's list (it is passed in order after the ones before it)
        while (pending.length > 0 && !stalled) pending.shift()?.()
      }
    },
    cut() {
      for (const socket of sockets) socket.destroy()
    },
    silence() {
      for (const silence of silencers) silence()
      silencers.clear()
    },
    get stalled() {
      return stalled
    },
    stats: () => ({ accepted, open: held.size }),
    async close() {
      stalled = false
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
