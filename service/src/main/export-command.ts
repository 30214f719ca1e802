/**
 * `wds export`'s old module path, kept only until test/export-streaming.test.ts (moving with test/ right
 * now) imports commands/export.ts. @deprecated remove once nothing imports it.
 */
export { EXPORT_USAGE, runExport } from './commands/export.ts'
