import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Serialize = (data: unknown) => string
type BuildSerializer = (route: { schema: unknown; method: string; url: string; httpStatus: string }) => Serialize

/**
 * The pages of records (api/wallets/transfer-records.ts), which their shapers build field by field in their
 * schema's order and nothing else: serialised by V8's own JSON.stringify rather than the compiled
 * serialiser, which builds the answer by appending a few thousand pieces. Alone the two take about the
 * same time on a page; in the whole process this one cost less (interleaved bench:api-style runs:
 * 583 against 486 pages/s, 1.84 against 2.00 ms of Node CPU a page). test/helpers/app.ts holds every
 * page a test app answers to what its schema's compiled serialiser would write.
 */
export const RECORD_PAGES: ReadonlySet<string> = new Set([
  'TransferList',
  'Erc20TransferList',
  'NftTransferList',
  'TransactionList',
])

const isRecordPage = (schema: unknown) =>
  typeof schema === 'object' && schema !== null && RECORD_PAGES.has(String((schema as { $ref?: unknown }).$ref))

/**
 * Fastify's response serialisers (fast-json-stringify), each compiled when its route first answers
 * with that status rather than all at start-up, where they cost about 0.6 s of CPU: a service that
 * listens in seconds, and the same serialiser from the first answer on. Record pages: JSON.stringify.
 */
export function createSerializerBuilder(externalSchemas: unknown, serializerOpts: unknown): BuildSerializer {
  const build = compileFromSchemas(externalSchemas, serializerOpts)
  return (route) => {
    // JSON.stringify itself (Fastify calls a serialiser with the payload alone): nothing of ours runs per page
    if (isRecordPage(route.schema)) return JSON.stringify
    let serialize: Serialize | undefined
    return (data) => {
      serialize ??= build(route)
      return serialize(data)
    }
  }
}

/** fast-json-stringify's compiler over the app's shared schemas: a route's serialiser built from its schema. */
export function compileFromSchemas(externalSchemas: unknown, serializerOpts: unknown): BuildSerializer {
  return (SerializerSelector() as (schemas: unknown, options: unknown) => BuildSerializer)(externalSchemas, serializerOpts)
}
