import { RECORD_TYPES, type RecordType } from '../records.ts'

/** The category vocabulary of `/transactions` (docs/transactions.md): values are added, never renamed. */
export const CATEGORIES = [
  'send',
  'receive',
  'self',
  'token-send',
  'token-receive',
  'nft-send',
  'nft-receive',
  'swap',
  'nft-purchase',
  'nft-sale',
  'mint',
  'burn',
  'airdrop',
  'deposit',
  'withdrawal',
  'reward',
  'yield',
  'fee-only',
  'contract-interaction',
] as const

export type Category = (typeof CATEGORIES)[number]

/** The fewest distinct recipients one sender gives a token in one transaction for it to be an airdrop. */
export const AIRDROP_MIN_RECIPIENTS = 10

/** One of the wallet's non-fee records of a transaction, as the rules see it. */
export type Movement = {
  readonly type: RecordType
  /** Relative to the wallet: `self` when it is both sender and recipient. */
  readonly side: 'in' | 'out' | 'self'
  readonly from: string | null
  readonly to: string | null
  /** The asset's key: '' for the chain's coin, the contract, and the token id for an NFT. */
  readonly asset: string
  /** How the asset is named in explanations (its symbol, else its contract). */
  readonly label: string
}

/** What the rules know of the transaction besides its movements. */
export type TransactionFacts = {
  readonly status: 'success' | 'failed'
  readonly initiatedByWallet: boolean
  /** The wallet paid a fee for it. */
  readonly paidFee: boolean
  /** The chain's null address (mints come from it, burns go to it), where it has one. */
  readonly zeroAddress: string | undefined
  /**
   * The chain does not count change as a movement (UTXO chains): a successful transaction whose only
   * record for the wallet is its fee spent the wallet's outputs to itself.
   */
  readonly changeIsNoMovement: boolean
  /**
   * Per asset the wallet received: the most distinct addresses one of its senders sent it to in this
   * transaction (counted in the indexed records; absent where not counted).
   */
  readonly recipientsPerSender: ReadonlyMap<string, number>
}

export type Rule = { readonly id: string; readonly explanation: string }
export type Categorised = { readonly category: Category; readonly rule: Rule }

const kindOf = (m: Movement) => RECORD_TYPES[m.type]
const isNft = (m: Movement) => kindOf(m) === 'nft'
const isFungible = (m: Movement) => !isNft(m)
const isTokenOrNft = (m: Movement) => kindOf(m) !== 'coin'

/** The distinct labels of some movements, in their order, as one phrase. */
function labels(movements: readonly Movement[]): string {
  const seen = [...new Set(movements.map((m) => m.label))]
  return seen.length <= 3 ? seen.join(', ') : `${seen.slice(0, 3).join(', ')} and ${seen.length - 3} more`
}

const named = (category: Category, rule: string, explanation: string): Categorised => ({
  category,
  rule: { id: `${category}.${rule}`, explanation },
})

/** The record kinds that name a transaction by themselves, in their precedence. */
const LEDGER_KINDS = [
  ['deposit', 'a deposit record: value minted to the wallet by a bridge'],
  ['withdrawal', 'a withdrawal record: value withdrawn to the wallet (a beacon withdrawal, a bridge burn)'],
  ['reward', 'a reward record: value the chain paid the wallet (a block reward, a coinbase output)'],
  ['yield', 'a yield record: the wallet’s balance grew by a rebase'],
] as const satisfies readonly (readonly [Category & RecordType, string])[]

/**
 * Names a transaction from the wallet's movements in it and the facts about it: the first rule that
 * matches, in the precedence docs/transactions.md lists (each rule is one `if` below, in that order).
 */
export function categorise(movements: readonly Movement[], facts: TransactionFacts): Categorised {
  if (movements.length === 0) {
    if (facts.status === 'failed') return named('fee-only', 'failed', 'the transaction failed: it moved nothing but its fee')
    if (facts.changeIsNoMovement && facts.paidFee) {
      return named('self', 'consolidation', 'the wallet spent its own outputs to itself: only its fee left it')
    }
    return named('fee-only', 'nothing-moved', 'the wallet paid a fee and nothing else moved for it')
  }
  for (const [type, explanation] of LEDGER_KINDS) {
    if (movements.some((m) => m.type === type)) return named(type, 'record', explanation)
  }
  const moved = movements.filter((m) => m.side !== 'self')
  if (moved.length === 0) return named('self', 'to-itself', `the wallet sent ${labels(movements)} to itself`)

  const received = moved.filter((m) => m.side === 'in')
  const sent = moved.filter((m) => m.side === 'out')
  const zero = facts.zeroAddress
  const minted = received.filter((m) => isTokenOrNft(m) && m.from === zero)
  if (zero !== undefined && minted.length > 0) {
    return named('mint', 'from-zero', `the wallet received ${labels(minted)} from the zero address (an issuance)`)
  }
  const burnt = sent.filter((m) => isTokenOrNft(m) && m.to === zero)
  if (zero !== undefined && burnt.length > 0) {
    return named('burn', 'to-zero', `the wallet sent ${labels(burnt)} to the zero address (a burn)`)
  }
  const nftIn = received.filter(isNft)
  const nftOut = sent.filter(isNft)
  const fungibleIn = received.filter(isFungible)
  const fungibleOut = sent.filter(isFungible)
  if (nftIn.length > 0 && fungibleOut.length > 0 && nftOut.length === 0) {
    return named('nft-purchase', 'fungible-for-nft', `the wallet paid ${labels(fungibleOut)} and received ${labels(nftIn)}`)
  }
  if (nftOut.length > 0 && fungibleIn.length > 0 && nftIn.length === 0) {
    return named('nft-sale', 'nft-for-fungible', `the wallet sent ${labels(nftOut)} and received ${labels(fungibleIn)}`)
  }
  const sentAssets = new Set(fungibleOut.map((m) => m.asset))
  const receivedAssets = new Set(fungibleIn.map((m) => m.asset))
  const gained = fungibleIn.filter((m) => !sentAssets.has(m.asset))
  const given = fungibleOut.filter((m) => !receivedAssets.has(m.asset))
  if (gained.length > 0 && given.length > 0) {
    return named(
      'swap',
      'fungible-for-fungible',
      `the wallet sent ${labels(given)} and received ${labels(gained)} in one transaction`,
    )
  }
  if (sent.length === 0) return categoriseReceipt(received, facts)
  if (received.length === 0) return categoriseOneWay(sent, 'send')
  return facts.initiatedByWallet
    ? named(
        'contract-interaction',
        'initiated',
        `the wallet sent ${labels(sent)} and received ${labels(received)}: no rule names what that was`,
      )
    : named(
        'contract-interaction',
        'undecided',
        `someone else's transaction sent ${labels(sent)} from the wallet and gave it ${labels(received)}: the movements do not decide`,
      )
}

/** Movements that only came in: an airdrop when a sender gave the same token to many in this transaction. */
function categoriseReceipt(received: readonly Movement[], facts: TransactionFacts): Categorised {
  if (!facts.initiatedByWallet && received.every(isTokenOrNft)) {
    const recipients = Math.max(0, ...received.map((m) => facts.recipientsPerSender.get(m.asset) ?? 0))
    if (recipients >= AIRDROP_MIN_RECIPIENTS) {
      return named(
        'airdrop',
        'one-to-many',
        `the wallet received ${labels(received)} in a transaction it did not initiate, whose sender sent it to ${recipients} addresses`,
      )
    }
  }
  return categoriseOneWay(received, 'receive')
}

/** Movements in one direction only, named by the most specific kind among them: NFT, then token, then coin. */
function categoriseOneWay(movements: readonly Movement[], way: 'send' | 'receive'): Categorised {
  const what = `the wallet only ${way === 'send' ? 'sent' : 'received'} ${labels(movements)}`
  const rule = way === 'send' ? 'only-out' : 'only-in'
  if (movements.some(isNft)) return named(`nft-${way}`, rule, what)
  if (movements.some(isTokenOrNft)) return named(`token-${way}`, rule, what)
  return named(way, rule, what)
}
