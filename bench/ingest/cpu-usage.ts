import { readdir, readFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'

/**
 * CPU seconds spent by the processes of a run (this Node process, anvil, PostgreSQL, Ponder), read
 * from /proc, and by everything else on the machine: on a shared 2-core machine a busy neighbour
 * shows up as `otherSeconds` and explains a slow run. Linux only; elsewhere the figures are null.
 */
/**
 * A name for each process counted: alone, or with all its descendants (`tree`). A `nested` group is part
 * of another group (a child's PostgreSQL inside the child's tree): reported, not counted twice.
 */
export type CpuGroups = Record<string, { pid: number; tree: boolean; nested?: boolean } | undefined>

export type CpuSnapshot = {
  at: number
  groups: Record<string, number>
  /** The groups that are part of another one. */
  nested: string[]
  machineBusy: number
  machineIdle: number
}

export type CpuReport = {
  /** CPU seconds per process group over the run. */
  seconds: Record<string, number>
  /** CPU seconds of every other process on the machine. */
  otherSeconds: number
  /** otherSeconds over the machine's capacity in the run (cores × wall seconds): above ~0.05 the run was disturbed. */
  otherShare: number
  /** Idle CPU seconds (cores × wall seconds − busy). */
  idleSeconds: number
  loadAverage1m: number
}

const TICKS_PER_SECOND = 100

type Stat = { pid: number; ppid: number; own: number; children: number }

async function readStat(pid: number): Promise<Stat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8')
    // the command name may hold spaces: fields start after the last ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    const n = (i: number) => Number(fields[i - 3])
    return { pid, ppid: n(4), own: n(14) + n(15), children: n(16) + n(17) }
  } catch {
    return undefined
  }
}

async function readAllStats(): Promise<Stat[]> {
  const pids = (await readdir('/proc').catch(() => [])).filter((d) => /^\d+$/.test(d)).map(Number)
  return (await Promise.all(pids.map(readStat))).filter((s) => s !== undefined)
}

/**
 * A process's CPU ticks with those of its descendants, living (own counts) and reaped (children counts,
 * of every process in the tree: PostgreSQL's backends, parallel index-build workers and autovacuum
 * workers are reaped by the postmaster, not by the root; counted at the root alone, their CPU showed
 * as "other", 343 CPU-s of a 10⁷-record bench:scale run).
 */
function treeTicks(root: number, stats: Stat[]): number {
  const byParent = new Map<number, Stat[]>()
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s])
  const self = stats.find((s) => s.pid === root)
  if (self === undefined) return 0
  let ticks = self.own + self.children
  const stack = [...(byParent.get(root) ?? [])]
  while (stack.length > 0) {
    const s = stack.pop() as Stat
    ticks += s.own + s.children
    stack.push(...(byParent.get(s.pid) ?? []))
  }
  return ticks
}

async function readMachine(): Promise<{ busy: number; idle: number }> {
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? ''
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[]
    return {
      busy: (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0),
      idle: (idle ?? 0) + (iowait ?? 0),
    }
  } catch {
    return { busy: 0, idle: 0 }
  }
}

export async function takeCpuSnapshot(groups: CpuGroups): Promise<CpuSnapshot> {
  const stats = await readAllStats()
  const machine = await readMachine()
  const out: Record<string, number> = {}
  const nested: string[] = []
  for (const [name, group] of Object.entries(groups)) {
    if (group === undefined) continue
    out[name] = group.tree ? treeTicks(group.pid, stats) : (stats.find((s) => s.pid === group.pid)?.own ?? 0)
    if (group.nested) nested.push(name)
  }
  return { at: performance.now(), groups: out, nested, machineBusy: machine.busy, machineIdle: machine.idle }
}

export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuReport {
  const seconds: Record<string, number> = {}
  let ours = 0
  for (const [name, ticks] of Object.entries(after.groups)) {
    const delta = ticks - (before.groups[name] ?? 0)
    seconds[name] = round2(delta / TICKS_PER_SECOND)
    if (!after.nested.includes(name)) ours += delta
  }
  const other = Math.max(0, after.machineBusy - before.machineBusy - ours) / TICKS_PER_SECOND
  return {
    seconds,
    otherSeconds: round2(other),
    otherShare: round2(other / Math.max(0.001, (cpus().length * (after.at - before.at)) / 1000)),
    idleSeconds: round2((after.machineIdle - before.machineIdle) / TICKS_PER_SECOND),
    loadAverage1m: round2(loadavg()[0] ?? 0),
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100
