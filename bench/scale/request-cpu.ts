/**
 * The CPU a server spends answering: its Node process (every thread) and its database backends, in
 * nanoseconds from /proc/<pid>/task/<tid>/schedstat (the scheduler's own account of time run).
 * /proc/<pid>/stat counts 10 ms ticks, too coarse for a 3 ms page; and unlike a request's answer time,
 * CPU time does not grow with what else the shared machine runs meanwhile. Linux only.
 */
import { readdir, readFile } from 'node:fs/promises'
import type { Queryable } from '../../service/src/store/db.ts'

/** A server: its Node process, and which database backends are its own (by application_name). */
export type Server = { pid: number; ownsBackend: (applicationName: string) => boolean }

/** Nanoseconds run so far by each process counted for each server, by pid. */
export type CpuSample = Record<string, Map<number, number>>

/** Nanoseconds `pid` has run, all its threads (0 once it has exited). */
async function processNs(pid: number): Promise<number> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[])
  const runs = await Promise.all(
    tasks.map((tid) =>
      readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').then(
        (text) => Number(text.split(' ')[0]),
        () => 0,
      ),
    ),
  )
  return runs.reduce((sum, ns) => sum + ns, 0)
}

/** Each server's processes and their nanoseconds now; `db` is the database the backends run in. */
export async function sampleCpu(db: Queryable, servers: Record<string, Server>): Promise<CpuSample> {
  const { rows } = await db.query<{ pid: number; application_name: string }>(
    "SELECT pid, application_name FROM pg_stat_activity WHERE backend_type = 'client backend'",
  )
  const sample: CpuSample = {}
  for (const [name, server] of Object.entries(servers)) {
    const pids = [server.pid, ...rows.filter((r) => server.ownsBackend(r.application_name)).map((r) => r.pid)]
    sample[name] = new Map(await Promise.all(pids.map(async (pid) => [pid, await processNs(pid)] as const)))
  }
  return sample
}

/**
 * Nanoseconds each server ran between two samples. A backend that opened in between counts whole (it
 * began in the interval); one that closed in between, or a process that exited, is left out (what it
 * ran is gone with it).
 */
export function nsBetween(before: CpuSample, after: CpuSample): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([name, pids]) => {
      let ns = 0
      for (const [pid, now] of pids) if (now > 0) ns += now - (before[name]?.get(pid) ?? 0)
      return [name, ns]
    }),
  )
}
