import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Serialize = (data: unknown) => string
type BuildSerializer = (route: { schema: unknown; method: string; url: string; httpStatus: string }) => Serialize

/**
 * Fastify's response serialisers (fast-json-stringify), each compiled when its route first answers
 * with that status rather than all at start-up, where they cost about 0.6 s of CPU: a service that
 * listens in seconds, and the same serialiser from the first answer on.
 */
export function createSerializerBuilder(externalSchemas: unknown, serializerOpts: unknown): BuildSerializer {
  const build = (SerializerSelector() as (schemas: unknown, options: unknown) => BuildSerializer)(externalSchemas, serializerOpts)
  return (route) => {
    let serialize: Serialize | undefined
    return (data) => {
      serialize ??= build(route)
      return serialize(data)
    }
  }
}
