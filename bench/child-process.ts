/** Child processes of the benchmarks: started and waited for until they print what they listen on, then stopped. */
import { type ChildProcess, spawn } from 'node:child_process'

/** Runs `node args` with `env` added and resolves once its output matches `pattern` (group 1: the URL). */
export function spawnAndWait(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const collect = (chunk: Buffer) => {
    output += chunk
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`)))
    const timer = setInterval(() => {
      const match = pattern.exec(output)
      if (match?.[1]) {
        clearInterval(timer)
        resolve({ child, url: new URL(match[1]) })
      }
    }, 20)
  })
}

/** SIGTERM, then waits for the exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
}
