import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchema } from 'fastify'

type HttpPart = 'body' | 'querystring' | 'params' | 'headers'
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }

const STRICT = {
  integer: {
    pattern: /^-?(0|[1-9][0-9]{0,15})$/,
    says: 'must be a decimal integer such as 100 (no sign, exponent, hex or spaces)',
  },
  number: { pattern: /^-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,18})?$/, says: 'must be a decimal number such as 1.5' },
  boolean: { pattern: /^(true|false)$/, says: 'must be true or false' },
} as const

/**
 * The request validators: JSON bodies are taken as sent (`{"name": true}` is not the string "true");
 * query strings and path parameters, which are text, are converted to the schema's numbers and
 * booleans only when they are written plainly (`limit=100`; not `0x10`, `+10`, `1e3` or `Infinity`).
 * A NUL character is refused anywhere: no text column takes it, so it could only ever be an attack.
 */
export function createValidatorBuilder(externalSchemas: Record<string, unknown>) {
  const options = { useDefaults: true, removeAdditional: false, allErrors: false, addUsedSchema: false, strict: false } as const
  const ajvs = new Map<boolean, Ajv>()
  /** The Ajv instances, made when a route first validates (start-up does not pay for routes nobody calls). */
  const ajvOf = (coerceTypes: boolean) => {
    let ajv = ajvs.get(coerceTypes)
    if (ajv === undefined) {
      ajv = new Ajv({ ...options, coerceTypes })
      addFormats.default(ajv)
      for (const schema of Object.values(externalSchemas)) ajv.addSchema(schema as object)
      ajvs.set(coerceTypes, ajv)
    }
    return ajv
  }

  return ({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }): Validate => {
    const part = (httpPart ?? 'body') as HttpPart
    let compiled: ValidateFunction | undefined
    const properties = ((schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}) as Record<
      string,
      { type?: unknown }
    >
    const validate: Validate = (data) => {
      const nul = findNul(data, '')
      if (nul !== undefined) return refuse(validate, nul, 'must not contain a NUL character')
      if (part === 'querystring' || part === 'params') {
        for (const [name, value] of Object.entries((data ?? {}) as Record<string, unknown>)) {
          const type = properties[name]?.type
          const rule = typeof type === 'string' && type in STRICT ? STRICT[type as keyof typeof STRICT] : undefined
          if (rule !== undefined && typeof value === 'string' && !rule.pattern.test(value)) {
            return refuse(validate, `/${name}`, rule.says)
          }
        }
      }
      // compiled on first use: about 0.5 s of start-up for every route's validators at once
      compiled ??= ajvOf(part !== 'body').compile(schema as object)
      const valid = compiled(data)
      validate.errors = compiled.errors ?? null
      return valid
    }
    return validate
  }
}

function refuse(validate: Validate, instancePath: string, message: string): false {
  validate.errors = [{ instancePath, schemaPath: '#', keyword: 'format', params: {}, message }]
  return false
}

/** The JSON-pointer path of the first string holding a NUL (a key or a value), or undefined. */
function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : undefined
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNul(item, `${path}/${index}`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return `${path}/${key.replaceAll('\u0000', '\\u0000')}`
      const found = findNul(item, `${path}/${key}`)
      if (found !== undefined) return found
    }
  }
  return undefined
}
