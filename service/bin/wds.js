#!/usr/bin/env node
// The `wds` command. The service runs from its TypeScript sources through tsx: no build step.
import { register } from 'tsx/esm/api'

register()
await import('../src/main/cli.ts')
