import { spawnSync } from 'node:child_process'
import { cp, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
// @ts-expect-error: bin/ is plain JavaScript, without types
import { freshBuild } from '../../bin/build.js'

const SERVICE = join(import.meta.dirname, '../..')
let service: string

beforeAll(async () => {
  // a copy of the service's sources, so that they can be changed here
  const root = await mkdtemp(join(tmpdir(), 'wds-build-'))
  service = join(root, 'service')
  await cp(join(SERVICE, 'src'), join(service, 'src'), { recursive: true })
  await symlink(join(SERVICE, '..', 'node_modules'), join(root, 'node_modules'))
})

afterAll(async () => {
  await rm(join(service, '..'), { recursive: true, force: true })
})

const run = (entry: string, ...args: string[]) => spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8' })

test('every source is compiled beside src/, its relative imports pointing at the compiled files, and the copy runs', async () => {
  const entry: string = await freshBuild(service)
  const sources = (await readdir(join(service, 'src'), { recursive: true })).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
  )
  const compiled = new Set(await readdir(join(service, 'build'), { recursive: true }))
  expect(sources.filter((file) => !compiled.has(file.replace(/\.ts$/, '.js')))).toEqual([])
  expect(compiled.has(join('store', 'migrations', '0001_accounts_and_api_keys.sql'))).toBe(true)
  const cli = await readFile(entry, 'utf8')
  expect(cli).toMatch(/from "\.\.\/config\/config\.js"/)
  expect(cli).not.toMatch(/from "\.{1,2}\/[^"]*\.ts"/)
  const help = run(entry, 'help')
  expect([help.status, help.stdout]).toEqual([0, expect.stringContaining('keys create --email')])
})

test('the copy is reused while the sources are unchanged, and compiled again when one changes', async () => {
  const entry: string = await freshBuild(service)
  const before = (await stat(entry)).mtimeMs
  expect(await freshBuild(service)).toBe(entry)
  expect((await stat(entry)).mtimeMs).toBe(before)
  const cli = join(service, 'src', 'main', 'cli.ts')
  await writeFile(cli, `${await readFile(cli, 'utf8')}\nprocess.stdout.write('changed\\n')\n`)
  // several processes starting at once: one copy ends up in place, of the changed sources
  const entries = await Promise.all([freshBuild(service), freshBuild(service), freshBuild(service)])
  expect(new Set(entries)).toEqual(new Set([entry]))
  expect(run(entry, 'help').stdout).toMatch(/changed\n$/)
  expect((await readdir(service)).filter((name) => name.startsWith('build.tmp-'))).toEqual([])
})
