import { describe, expect, test } from 'vitest'
import { buildInvoice, recentMonths } from './invoices.ts'

const at = (iso: string) => new Date(iso)

describe('buildInvoice()', () => {
  test('a whole month on one plan is its monthly price; a running month is open and prorated so far', () => {
    const changes = [{ tier: 'std' as const, at: at('2026-01-15T00:00:00Z') }]
    expect(buildInvoice('2026-10', changes, 1234, at('2026-11-23T00:00:00Z'))).toEqual({
      month: '2026-10',
      status: 'closed',
      lines: [
        { tier: 'std', plan: 'Standard', from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z', amountCents: 4900 },
      ],
      requests: 1234,
      totalCents: 4900,
      currency: 'USD',
    })
    const running = buildInvoice('2026-11', changes, 5, at('2026-11-16T00:00:00Z'))
    expect(running).toMatchObject({ status: 'open', totalCents: Math.round((4900 * 15) / 30) })
  })

  test('a plan change mid-month splits the month, each plan prorated to the cent', () => {
    const changes = [
      { tier: 'free' as const, at: at('2026-09-02T10:00:00Z') },
      { tier: 'pro' as const, at: at('2026-09-11T00:00:00Z') },
    ]
    const invoice = buildInvoice('2026-09', changes, 0, at('2026-12-01T00:00:00Z'))
    expect(invoice?.lines.map((l) => [l.tier, l.from.slice(0, 16), l.to.slice(0, 10), l.amountCents])).toEqual([
      ['free', '2026-09-02T10:00', '2026-09-11', 0],
      ['pro', '2026-09-11T00:00', '2026-10-01', Math.round((29900 * 20) / 30)],
    ])
    expect(invoice?.totalCents).toBe(19933)
  })

  test('Enterprise is by contract: null amounts and total; no invoice before the account existed', () => {
    const changes = [{ tier: 'ent' as const, at: at('2026-05-01T00:00:00Z') }]
    expect(buildInvoice('2026-06', changes, 9, at('2026-07-01T00:00:00Z'))?.totalCents).toBeNull()
    expect(buildInvoice('2026-04', changes, 0, at('2026-07-01T00:00:00Z'))).toBeUndefined()
  })
})

test('recentMonths() lists months newest first from the first plan, at most count', () => {
  expect(recentMonths(at('2026-09-30T23:00:00Z'), at('2026-11-01T00:00:00Z'), 12)).toEqual(['2026-11', '2026-10', '2026-09'])
  expect(recentMonths(at('2020-01-01T00:00:00Z'), at('2026-11-01T00:00:00Z'), 2)).toEqual(['2026-11', '2026-10'])
})
