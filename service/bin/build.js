// The JavaScript copy of the service's TypeScript sources that `wds` runs (README, "Decisions").
//
// Each source file is compiled on its own by esbuild (types stripped, nothing bundled) into
// service/build, beside src/ at the same depth, so that paths the code takes from its own location
// (migrations, data/, portal-web/, docs/) stay right. The copy is tagged with a hash of the sources:
// when they change, the next `wds` compiles them again (a fraction of a second), so what runs is
// always what is on disk.
import { createHash, randomUUID } from 'node:crypto'
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const SERVICE = join(dirname(fileURLToPath(import.meta.url)), '..')
const STAMP = '.sources-hash'
/** Raised when the way a file is compiled changes, so that older copies are not taken for fresh ones. */
const FORMAT = 2
/** Replaced copies are removed once older than this: a process started from one may still be loading it. */
const OLD_COPY_MS = 10 * 60_000

/** The sources, sorted: every file under src/ but the unit tests beside them. */
async function listSources(sources) {
  const entries = await readdir(sources, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(sources, join(entry.parentPath, entry.name)))
    .sort()
}

async function hashSources(sources, files) {
  const hash = createHash('sha256').update(`format ${FORMAT}\n`)
  for (const file of files) hash.update(`${file}\n`).update(await readFile(join(sources, file)))
  return hash.digest('hex')
}

/** `./x.ts` → `./x.js` in the specifiers of esbuild's output (it writes them double-quoted). */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)"(\.{1,2}\/[^"\n]*)\.ts"/g

async function compile(sources, files, into) {
  const { transform } = await import('esbuild')
  for (const file of files) {
    const target = join(into, file)
    await mkdir(dirname(target), { recursive: true })
    if (!file.endsWith('.ts')) {
      await cp(join(sources, file), target)
      continue
    }
    const source = join(sources, file)
    const { code, map } = await transform(await readFile(source, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: 'external',
      sourcefile: source,
    })
    // the map beside the file, read only when source maps are on (NODE_OPTIONS=--enable-source-maps)
    const js = target.replace(/\.ts$/, '.js')
    await writeFile(`${js}.map`, map)
    await writeFile(js, `${code.replace(RELATIVE_TS, '$1"$2.js"')}//# sourceMappingURL=${basename(js)}.map\n`)
  }
}

async function readStamp(dir) {
  return readFile(join(dir, STAMP), 'utf8').catch(() => undefined)
}

async function removeOldCopies(service) {
  for (const name of await readdir(service)) {
    if (!name.startsWith('build.old-')) continue
    const path = join(service, name)
    if (Date.now() - (await stat(path)).mtimeMs > OLD_COPY_MS) await rm(path, { recursive: true, force: true })
  }
}

/**
 * The entry point of a copy that matches the sources of `service` (src/ → build/), compiling one
 * first when there is none.
 * Several processes may start at once: each compiles into a directory of its own and the first
 * to finish puts it in place; the others find it there and use it.
 */
export async function freshBuild(service = SERVICE) {
  const sources = join(service, 'src')
  const build = join(service, 'build')
  const files = await listSources(sources)
  const hash = await hashSources(sources, files)
  const entry = join(build, 'main', 'cli.js')
  if ((await readStamp(build)) === hash) return entry
  const unique = `${process.pid}-${randomUUID().slice(0, 8)}`
  const fresh = join(service, `build.tmp-${unique}`)
  try {
    await compile(sources, files, fresh)
    await writeFile(join(fresh, STAMP), hash)
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await readStamp(build)
      if (current === hash) return entry
      // a stale or half-made copy is moved aside (absent: nothing to move)
      await rename(build, join(service, `build.old-${unique}-${attempt}`)).catch(() => {})
      try {
        await rename(fresh, build)
        return entry
      } catch {
        // another process put its copy in place meanwhile: look at it again
      }
    }
    throw new Error('could not put the compiled copy in place')
  } finally {
    await rm(fresh, { recursive: true, force: true })
    await removeOldCopies(service).catch(() => {})
  }
}
