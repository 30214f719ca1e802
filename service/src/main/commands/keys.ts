import { parseArgs } from 'node:util'
import { createKey } from '../../access/keys.ts'
import type { Config } from '../../config/config.ts'
import { isTier, TIER_MARKERS } from '../../domain/tiers.ts'
import { WdsError } from '../../lib/errors.ts'
import type { ApiKeyRecord } from '../../store/accounts-store.ts'
import { withAdminDatabase } from './db.ts'
import { parse, UsageError } from './usage.ts'

const KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** `wds keys create|list|revoke`. */
export async function runKeys(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  switch (sub) {
    case 'create':
      return createKeyCommand(config, args)
    case 'list':
      return listKeys(config, args)
    case 'revoke':
      return revokeKey(config, args)
    default:
      throw new UsageError(
        sub === undefined ? 'keys needs a subcommand: create, list or revoke' : `unknown keys subcommand "${sub}"`,
      )
  }
}

/** `wds keys create`: the account too when it is new; the key is printed once. */
async function createKeyCommand(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, {
    email: { type: 'string' },
    tier: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.email === undefined) throw new UsageError('keys create needs --email')
  if (values.tier === undefined || !isTier(values.tier)) {
    throw new UsageError(`keys create needs --tier, one of ${TIER_MARKERS.join(', ')}`)
  }
  const { email, tier, name } = { email: values.email, tier: values.tier, name: values.name }
  const created = await withAdminDatabase(config, (store) =>
    createKey({ store, keyPrefix: config.keyPrefix }, { email, tier, name }),
  )
  const { record } = created
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ id: record.id, key: created.key, tier: record.tier, accountId: record.accountId })}\n`,
    )
  } else {
    process.stdout.write(
      [
        `${created.accountCreated ? 'Created account' : 'Account'} ${record.email} (${record.accountId}), tier ${record.tier}`,
        `Created key ${record.id}. This is the only time it is shown; keep it secret:`,
        '',
        `  ${created.key}`,
        '',
      ].join('\n'),
    )
  }
  return 0
}

async function listKeys(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, { email: { type: 'string' }, json: { type: 'boolean' } })
  const keys = await withAdminDatabase(config, (store) =>
    store.listKeys(values.email === undefined ? {} : { email: values.email.trim().toLowerCase() }),
  )
  process.stdout.write(values.json ? `${JSON.stringify(keys)}\n` : formatKeys(keys))
  return 0
}

async function revokeKey(config: Readonly<Config>, args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true })
  const [id, ...extra] = positionals
  if (id === undefined || extra.length > 0) throw new UsageError('keys revoke needs exactly one key id')
  if (!KEY_ID.test(id)) throw new UsageError(`"${id}" is not a key id (a UUID, as shown by keys list)`)
  const { before, key } = await withAdminDatabase(config, async (store) => ({
    before: await store.findKey(id),
    key: await store.revokeKey(id),
  }))
  if (key === undefined) throw new WdsError('not_found', `there is no key ${id}`)
  const revokedAt = key.revokedAt?.toISOString()
  process.stdout.write(
    before?.revokedAt == null
      ? `Revoked key ${key.id} (${key.hint}) of ${key.email} at ${revokedAt}\n`
      : `Key ${key.id} (${key.hint}) of ${key.email} was already revoked at ${revokedAt}; nothing changed\n`,
  )
  return 0
}

function formatKeys(keys: ApiKeyRecord[]): string {
  if (keys.length === 0) return 'no keys\n'
  const rows = keys.map((k) => [
    k.id,
    k.email,
    k.accountTier,
    k.hint,
    k.createdAt.toISOString(),
    k.lastUsedAt?.toISOString() ?? '-',
    k.revokedAt === null ? 'active' : `revoked ${k.revokedAt.toISOString()}`,
  ])
  // The account's tier now (its limits); the key's own marker, the tier it was made on, is in its hint.
  const header = ['ID', 'ACCOUNT', 'ACCOUNT TIER', 'KEY', 'CREATED', 'LAST USED', 'STATE']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  return `${[header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`
}
