#!/usr/bin/env node
// The `wds` command. The service is written in TypeScript and has no build step to remember: it runs
// from a JavaScript copy of its sources that bin/build.js keeps up to date (compiled again when they
// change), which starts three times faster than compiling each module as it loads. Should that copy
// not be possible (a read-only install), it runs from the sources through tsx.
import { freshBuild } from './build.js'

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
