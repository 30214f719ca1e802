import { createHash } from 'node:crypto'
import { bech32 } from '@scure/base'
import { pairChanges } from './movements.ts'

/*
 * What a Cosmos SDK chain's events say moved. The bank module is the only keeper of balances, and every
 * change of one emits an event: `coin_spent` (spender, amount) for each decrease and `coin_received`
 * (receiver, amount) for each increase. SendCoins adds a `transfer` (sender, recipient, amount) after
 * its pair; DelegateCoins (MsgDelegate) and UndelegateCoins (stake returned when an unbonding
 * completes, in the block's end-block events) emit the pair alone; MintCoins a `coin_received` alone,
 * BurnCoins a `coin_spent` alone. So the movements of a list of events are its coin_spent/coin_received
 * pairs, each `transfer` telling (and deduplicated against) the pair it follows.
 */

export type CosmosEvent = { type: string; attributes: { key: string; value: string; index?: boolean }[] }

/** One coin that moved from one party (null: minted) to another (null: burnt). */
export type CoinMove = { from: string | null; to: string | null; value: bigint; denom: string }

/** "2000000uatom,5ibc/27394…" → [[2000000n, 'uatom'], [5n, 'ibc/27394…']] */
export function parseCoins(text: string): [bigint, string][] {
  return text
    .split(',')
    .map((part) => /^(\d+)(.+)$/.exec(part.trim()))
    .filter((match) => match !== null)
    .map((match) => [BigInt(match[1] as string), match[2] as string])
}

/**
 * The entries of an event: its attributes `keys`, taken in turn. The `logs` of SDKs before 0.50 merge a
 * message's events of one type into one, repeating the keys: one entry each.
 */
export function eventEntries<K extends string>(event: CosmosEvent, keys: readonly K[]): Record<K, string>[] {
  const entries: Record<K, string>[] = []
  let current: Partial<Record<K, string>> = {}
  for (const { key, value } of event.attributes) {
    if (!(keys as readonly string[]).includes(key)) continue
    if (current[key as K] !== undefined) current = {}
    current[key as K] = value
    if (keys.every((k) => current[k] !== undefined)) {
      entries.push(current as Record<K, string>)
      current = {}
    }
  }
  return entries
}

/**
 * The events of each message of a transaction: its `logs` (SDK before 0.50), else its events grouped
 * by their `msg_index` (0.50 on: `logs` is empty). The transaction's own events (the fee) are not in them.
 */
export function messageEvents(tx: { logs?: { events: CosmosEvent[] }[]; events?: CosmosEvent[] }): CosmosEvent[][] {
  if (tx.logs !== undefined && tx.logs.length > 0) return tx.logs.map((log) => log.events)
  const byMessage = new Map<string, CosmosEvent[]>()
  for (const event of tx.events ?? []) {
    const index = event.attributes.find((a) => a.key === 'msg_index')?.value
    if (index === undefined) continue
    const events = byMessage.get(index) ?? []
    events.push(event)
    byMessage.set(index, events)
  }
  return [...byMessage.values()]
}

type Side = { party: string; value: bigint; denom: string; at: number; used: boolean }

/** The coins of the events of type `type`, one side each, at the event's position. */
function sides(events: readonly CosmosEvent[], type: 'coin_spent' | 'coin_received'): Side[] {
  const partyKey = type === 'coin_spent' ? 'spender' : 'receiver'
  return events.flatMap((event, at) =>
    event.type !== type
      ? []
      : eventEntries(event, [partyKey, 'amount'] as const).flatMap((entry) =>
          parseCoins(entry.amount).map(([value, denom]) => ({ party: entry[partyKey], value, denom, at, used: false })),
        ),
  )
}

const take = (list: Side[], match: (side: Side) => boolean) => {
  const side = list.find((s) => !s.used && match(s))
  if (side !== undefined) side.used = true
  return side
}

/**
 * The coins a list of events moved (one message's, or a block's), in order: each `transfer` (with the
 * coin_spent/coin_received pair it follows, used up); each remaining coin_received with the nearest
 * coin_spent of the same coin before it (DelegateCoins, UndelegateCoins); what is left paired in order,
 * the rest minted or burnt. Each party's moves add up to its balance change.
 */
export function bankMoves(events: readonly CosmosEvent[]): CoinMove[] {
  const spent = sides(events, 'coin_spent')
  const received = sides(events, 'coin_received')
  const moves: (CoinMove & { at: number })[] = []
  events.forEach((event, at) => {
    if (event.type !== 'transfer') return
    for (const entry of eventEntries(event, ['sender', 'recipient', 'amount'])) {
      for (const [value, denom] of parseCoins(entry.amount)) {
        const coin = (party: string) => (s: Side) => s.party === party && s.value === value && s.denom === denom
        take(spent, coin(entry.sender))
        take(received, coin(entry.recipient))
        moves.push({ from: entry.sender, to: entry.recipient, value, denom, at })
      }
    }
  })
  for (const gain of received.filter((s) => !s.used)) {
    const before = spent.filter((s) => !s.used && s.at <= gain.at && s.value === gain.value && s.denom === gain.denom).at(-1)
    if (before === undefined) continue
    before.used = true
    gain.used = true
    moves.push({ from: before.party, to: gain.party, value: gain.value, denom: gain.denom, at: gain.at })
  }
  const rest = [...spent, ...received].filter((s) => !s.used)
  for (const denom of new Set(rest.map((s) => s.denom))) {
    const changes = rest
      .filter((s) => s.denom === denom)
      .map((s) => ({ party: s.party, delta: spent.includes(s) ? -s.value : s.value }))
    const at = Math.max(...rest.filter((s) => s.denom === denom).map((s) => s.at))
    for (const move of pairChanges(changes)) moves.push({ ...move, denom, at })
  }
  return moves.sort((a, b) => a.at - b.at).map(({ at: _, ...move }) => move)
}

/**
 * The staking module's pools on a chain of bech32 prefix `prefix` (module accounts: the first 20 bytes
 * of SHA-256 of the module's name): delegated coins go into `bonded_tokens_pool` (or, for a validator
 * out of the active set, `not_bonded_tokens_pool`), and return from `not_bonded_tokens_pool`.
 */
export function stakingPools(prefix: string): ReadonlySet<string> {
  return new Set(
    ['bonded_tokens_pool', 'not_bonded_tokens_pool'].map((name) =>
      bech32.encode(prefix, bech32.toWords(createHash('sha256').update(name).digest().subarray(0, 20))),
    ),
  )
}
