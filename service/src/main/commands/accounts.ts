import { normalizeEmail } from '../../access/keys.ts'
import { resolveLimits } from '../../access/limits.ts'
import type { Config } from '../../config/config.ts'
import { isTier, type Limits, TIER_MARKERS } from '../../domain/tiers.ts'
import { WdsError } from '../../lib/errors.ts'
import { createPlansStore } from '../../store/plans-store.ts'
import { withAdminDatabase } from './db.ts'
import { parse, UsageError } from './usage.ts'

/** `wds accounts set-tier|set-limits`: an admin's plan changes, effective from the account's next request. */
export async function runAccounts(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  switch (sub) {
    case 'set-tier':
      return setTier(config, args)
    case 'set-limits':
      return setLimits(config, args)
    default:
      throw new UsageError(
        sub === undefined ? 'accounts needs a subcommand: set-tier or set-limits' : `unknown accounts subcommand "${sub}"`,
      )
  }
}

async function setTier(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, { email: { type: 'string' }, tier: { type: 'string' } })
  if (values.email === undefined) throw new UsageError('accounts set-tier needs --email')
  if (values.tier === undefined || !isTier(values.tier)) {
    throw new UsageError(`accounts set-tier needs --tier, one of ${TIER_MARKERS.join(', ')}`)
  }
  const { email, tier } = { email: normalizeEmail(values.email), tier: values.tier }
  const result = await withAdminDatabase(config, (_store, db) => createPlansStore(db).setTier(email, tier))
  if (result === undefined) throw new WdsError('not_found', `there is no account ${email}`)
  const { account, previousTier } = result
  process.stdout.write(
    `Account ${account.email} (${account.id}) moved from ${previousTier} to ${tier}; from its next request its limits are ${formatLimits(resolveLimits(tier, null, config.accountConcurrency))}${tier === 'ent' ? ' until set with accounts set-limits' : ''}\n`,
  )
  return 0
}

async function setLimits(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, {
    email: { type: 'string' },
    'per-minute': { type: 'string' },
    'per-day': { type: 'string' },
    concurrent: { type: 'string' },
  })
  if (values.email === undefined) throw new UsageError('accounts set-limits needs --email')
  const perMinute = parseLimit(values['per-minute'], '--per-minute')
  const perDay = values['per-day'] === 'unlimited' ? null : parseLimit(values['per-day'], '--per-day')
  const email = normalizeEmail(values.email)
  const concurrent = values.concurrent === undefined ? undefined : parseLimit(values.concurrent, '--concurrent')
  const limits = { perMinute, perDay, ...(concurrent === undefined ? {} : { concurrent }) }
  const result = await withAdminDatabase(config, (_store, db) => createPlansStore(db).setEnterpriseLimits(email, limits))
  if (result.type === 'not-found') throw new WdsError('not_found', `there is no account ${email}`)
  if (result.type === 'not-enterprise') {
    throw new WdsError(
      'invalid_parameter',
      `the account ${email} is on the ${result.account.tier} tier, whose limits are fixed; own limits are for Enterprise accounts (wds accounts set-tier --email ${email} --tier ent)`,
    )
  }
  process.stdout.write(
    `Account ${result.account.email} (${result.account.id}) limits set to ${formatLimits(resolveLimits('ent', result.limits, config.accountConcurrency))}, from its next request\n`,
  )
  return 0
}

/** A limit given on the command line: a positive integer that fits the database's integer column. */
function parseLimit(value: string | undefined, option: string): number {
  if (value === undefined) throw new UsageError(`accounts set-limits needs ${option}`)
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(n >= 1 && n <= 2_147_483_647)) {
    throw new UsageError(
      `${option} must be a whole number of requests from 1 to 2147483647${option === '--per-day' ? ', or unlimited' : ''}, got "${value}"`,
    )
  }
  return n
}

function formatLimits({ perMinute, perDay, concurrent }: Limits): string {
  return `${perMinute.toLocaleString('en-US')}/min and ${perDay === null ? 'no daily quota' : `${perDay.toLocaleString('en-US')}/day`}, ${concurrent} requests at once per API process`
}
