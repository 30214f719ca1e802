#!/usr/bin/env node
// The `wds` command. The service is written in TypeScript and has no build step to remember: it runs
// from a JavaScript copy of its sources that bin/build.js keeps up to date (compiled again when they
// change), which starts three times faster than compiling each module as it loads. Should that copy
// not be possible (a read-only install), it runs from the sources through tsx.
import { setFlagsFromString } from 'node:v8'
import { freshBuild } from './build.js'

// V8 moves an allocation site's objects straight into the old generation once most of them outlive a
// young-generation collection ("pretenuring"). A request's objects that happen to survive one while it
// waits on the database then make that decision for every later request, and everything those objects
// point at (a page's rows, its JSON) is promoted and left for the full collections: 67 KB of each
// 100-record includePrices page against 1.4 KB without, GC 0.22 ms of each request against 0.05 (README,
// "Garbage collection"). Set before any of the service's code runs, for this process and its workers.
setFlagsFromString('--no-allocation-site-pretenuring')

const entry = await freshBuild().catch((error) => {
  process.emitWarning(`running from the TypeScript sources: ${error instanceof Error ? error.message : error}`)
  return undefined
})
if (entry === undefined) {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/main/cli.ts')
} else {
  // Source maps stay off unless asked for (NODE_OPTIONS=--enable-source-maps): on, Node reads the maps of
  // every module it loads, some 400 of them in node_modules, which took 0.2 s of each start.
  await import(entry)
}
