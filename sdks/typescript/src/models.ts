/**
 * The API's records, as the service sends them. Every model keeps fields it does not know yet (the
 * index signature), so a field added to the API is still there at run time; MODEL_FIELDS lists what
 * is typed, and a test checks it against the service's /openapi.json.
 */
import { decimalsOf, toBaseUnits } from './amounts.ts'
import { TRANSACTION_MODEL_FIELDS, type TransactionNetLine } from './transactions.ts'

type Open = { readonly [field: string]: unknown }

export type Direction = 'in' | 'out'

/** The spam reasons the service documents (docs/spam.md); a reason added later arrives as its string. */
export const SPAM_REASONS = [
  'impersonates-listed-token',
  'lure-in-metadata',
  'mass-airdrop',
  'address-poisoning',
  'zero-value-transfer-from',
] as const
export type SpamReason = (typeof SPAM_REASONS)[number] | (string & {})

/** Whether a record (or a balance's token) is spam, the reasons that fired, and whether the account's override decided. */
export type Spam = { flagged: boolean; reasons: SpamReason[]; source: 'computed' | 'account' | (string & {}) }
export type TransferType = 'native' | 'internal' | 'erc20' | 'erc721' | 'erc1155' | 'fee' | (string & {})

export type Transfer = Open & {
  /** Stable record id (being added to the API); de-duplicate by it. */
  id?: string
  chain: string
  chainId: number | null
  txHash: string
  blockNumber: number
  timestamp: string
  type: TransferType
  from: string
  to: string | null
  /** Exact decimal string in the asset's units. */
  value: string
  /** The value in base units as an integer string, when the service sends it. */
  valueRaw?: string
  asset: string | null
  contractAddress: string | null
  tokenId: string | null
  tokenDecimals: number | null
  logIndex: number | null
  direction: Direction
  /** UTXO chains: every sender of an `in`, every recipient of an `out`, with its share. */
  counterparties?: { address: string; value: string }[]
  price_usd?: number | null
  value_usd?: number | null
  /** On /transfers (not on a transaction's movements yet); a flagged record is never priced. */
  spam?: Spam
}

export type Erc20Transfer = Open & {
  id?: string
  chain: string
  chainId: number | null
  txHash: string
  blockNumber: number
  logIndex: number
  timestamp: string
  from: string
  to: string
  contractAddress: string
  tokenSymbol: string | null
  tokenDecimals: number | null
  value: string
  valueRaw?: string
  direction: Direction
  spam: Spam
}

export type NftTransfer = Open & {
  id?: string
  chain: string
  chainId: number | null
  txHash: string
  blockNumber: number
  logIndex: number
  batchIndex: number
  timestamp: string
  from: string
  to: string
  contractAddress: string
  tokenId: string
  tokenStandard: 'erc721' | 'erc1155' | (string & {})
  amount: string
  operator: string | null
  collectionName: string | null
  collectionSymbol: string | null
  direction: Direction
  spam: Spam
}

type ListEnvelope<T> = Open & {
  address: string
  chain: string
  /** All-chains mode: the address formats that read the address (`evm`, `move`, …); `["move"]` alone for a truncated `0x…`. */
  addressReadAs?: string[]
  chains?: string[]
  unavailableChains?: { chain: string; code: string }[]
  currency?: string
  transfers: T[]
  cursor: string | null
  hasMore: boolean
}
export type TransferList = ListEnvelope<Transfer>
export type Erc20TransferList = ListEnvelope<Erc20Transfer>
export type NftTransferList = ListEnvelope<NftTransfer>

export type Balance = Open & {
  chain: string
  chainId: number | null
  type: 'native' | 'erc20' | (string & {})
  asset: string | null
  name: string | null
  contractAddress: string | null
  tokenDecimals: number | null
  balance: string
  balanceRaw?: string
  priced?: boolean
  price_usd?: number | null
  value_usd?: number | null
  spam: Spam
}

export type BalanceList = Open & {
  address: string
  chain: string
  /** All-chains mode: the address formats that read the address (`evm`, `move`, …). */
  addressReadAs?: string[]
  chains?: string[]
  unavailableChains?: { chain: string; code: string }[]
  currency?: string
  asOf: { chain: string; blockNumber: number; timestamp: string }[]
  balances: Balance[]
  /** With includePrices: false when no balance has a known price. */
  priced?: boolean
  total_value_usd?: number | null
  /** An extended key or descriptor: each derived address that holds coins, with its balance. */
  addresses?: { address: string; balance: string }[]
}

export type ChainStatus = Open & {
  chain: string
  chainId: number | null
  name: string
  family: 'evm' | 'utxo' | 'account' | (string & {})
  coverage: string
  status: 'live' | 'syncing' | 'stalled' | 'unconfigured' | (string & {})
  latestBlock: number | null
  indexedBlock: number | null
  indexedFrom: number | null
  lagBlocks: number | null
  lagSeconds: number | null
  lastBlockTime: string | null
  lastError: string | null
}
export type ChainStatusList = Open & { updatedAt: string; chains: ChainStatus[] }

export type FxRate = Open & {
  from: string
  to: string
  date: string
  rate: number
  rateDate: string
  carriedForward: boolean
  source: string
}
export type FxMonthlyAverage = Open & {
  currency: string
  to: string
  year: number
  month: number
  rate: number
  observations: number
  firstDate: string
  lastDate: string
  complete: boolean
  method: string
  source: string
}
export type FxCurrency = Open & {
  code: string
  name: string
  source: string
  firstDate: string
  lastDate: string
  reason?: string
}
export type FxCurrencyList = Open & { currencies: FxCurrency[]; discontinued: FxCurrency[] }

export type Price = Open & {
  version: string
  symbol: string
  date: string
  currency: string
  price: number
  source: string
  qualityScore: number
  derivation: Open & { priceDate: string; usdPrice: number; quote: string; fxRate: number | null; fxRateDate: string | null }
}
export type PricedAssetList = Open & {
  assets: (Open & {
    symbol: string
    sources: (Open & { source: string; quote: string; firstDate: string; lastDate: string })[]
  })[]
}

export type ApiKey = Open & {
  id: string
  name: string | null
  tier: string
  hint: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}
/** A key as created: the only time `key` (the full secret) is ever shown. */
export type CreatedApiKey = ApiKey & { key: string }
export type ApiKeyList = Open & { keys: ApiKey[] }
/** A sign-up's answer: `signupToken` goes to `verify` with the mailed code (it is never mailed). */
export type SignupResult = Open & { status: string; email: string; signupToken: string }
export type Session = Open & { token: string; expiresAt: string }
export type Account = Open & { id: string; email: string; tier: string; createdAt: string; verifiedAt: string | null }
/** A rate-limit window as the limiter counts it right now; `limit` null: unlimited (the day, on some plans). */
export type UsageWindow = Open & { used: number; limit: number | null; resetsAt: string }
export type Usage = Open & {
  from: string
  to: string
  total: number
  days: (Open & {
    date: string
    requests: number
    keys: { keyId: string; hint: string; name: string | null; requests: number }[]
  })[]
  /** The running UTC minute and day from the rate limiter's own counters, read when `at` (the server's clock). */
  current: Open & { at: string; minute: UsageWindow & { limit: number }; day: UsageWindow }
}
export type Billing = Open & {
  plan: Open & { tier: string; name: string; monthlyPrice: string | null; limits: { perMinute: number; perDay: number | null } }
  payment: string
  currentPeriod: Open & { month: string; from: string; to: string; requests: number }
  invoices: Open[]
}
export type PlanChange = Open & { tier: string; changed: boolean }

/**
 * The fields each model types, by the name of its /openapi.json schema. `price_<ccy>`/`value_<ccy>`
 * and `total_value_<ccy>` are reached for any currency through priceIn()/valueIn()/totalValueIn().
 */
export const MODEL_FIELDS = {
  Transfer: [
    'id',
    'chain',
    'chainId',
    'txHash',
    'blockNumber',
    'timestamp',
    'type',
    'from',
    'to',
    'value',
    'valueRaw',
    'asset',
    'contractAddress',
    'tokenId',
    'tokenDecimals',
    'logIndex',
    'direction',
    'counterparties',
    'spam',
  ],
  Erc20Transfer: [
    'id',
    'chain',
    'chainId',
    'txHash',
    'blockNumber',
    'logIndex',
    'timestamp',
    'from',
    'to',
    'contractAddress',
    'tokenSymbol',
    'tokenDecimals',
    'value',
    'valueRaw',
    'direction',
    'spam',
  ],
  NftTransfer: [
    'id',
    'chain',
    'chainId',
    'txHash',
    'blockNumber',
    'logIndex',
    'batchIndex',
    'timestamp',
    'from',
    'to',
    'contractAddress',
    'tokenId',
    'tokenStandard',
    'amount',
    'operator',
    'collectionName',
    'collectionSymbol',
    'direction',
    'spam',
  ],
  TransferList: [
    'address',
    'chain',
    'addressReadAs',
    'chains',
    'unavailableChains',
    'currency',
    'transfers',
    'cursor',
    'hasMore',
  ],
  Erc20TransferList: ['address', 'chain', 'chains', 'unavailableChains', 'currency', 'transfers', 'cursor', 'hasMore'],
  NftTransferList: ['address', 'chain', 'chains', 'unavailableChains', 'currency', 'transfers', 'cursor', 'hasMore'],
  Balance: [
    'chain',
    'chainId',
    'type',
    'asset',
    'name',
    'contractAddress',
    'tokenDecimals',
    'balance',
    'balanceRaw',
    'priced',
    'spam',
  ],
  BalanceList: [
    'address',
    'chain',
    'addressReadAs',
    'chains',
    'unavailableChains',
    'currency',
    'asOf',
    'balances',
    'priced',
    'addresses',
  ],
  ChainStatus: [
    'chain',
    'chainId',
    'name',
    'family',
    'coverage',
    'status',
    'latestBlock',
    'indexedBlock',
    'indexedFrom',
    'lagBlocks',
    'lagSeconds',
    'lastBlockTime',
    'lastError',
  ],
  ChainStatusList: ['updatedAt', 'chains'],
  FxRate: ['from', 'to', 'date', 'rate', 'rateDate', 'carriedForward', 'source'],
  FxMonthlyAverage: [
    'currency',
    'to',
    'year',
    'month',
    'rate',
    'observations',
    'firstDate',
    'lastDate',
    'complete',
    'method',
    'source',
  ],
  FxCurrencyList: ['currencies', 'discontinued'],
  Price: ['version', 'symbol', 'date', 'currency', 'price', 'source', 'qualityScore', 'derivation'],
  PricedAssetList: ['assets'],
  ...TRANSACTION_MODEL_FIELDS,
} as const satisfies {
  Transfer: readonly (keyof Transfer & string)[]
  Erc20Transfer: readonly (keyof Erc20Transfer & string)[]
  NftTransfer: readonly (keyof NftTransfer & string)[]
  TransferList: readonly (keyof TransferList & string)[]
  Balance: readonly (keyof Balance & string)[]
  BalanceList: readonly (keyof BalanceList & string)[]
  ChainStatus: readonly (keyof ChainStatus & string)[]
  FxRate: readonly (keyof FxRate & string)[]
  FxMonthlyAverage: readonly (keyof FxMonthlyAverage & string)[]
  Price: readonly (keyof Price & string)[]
  [schema: string]: readonly string[]
}

/** Fields present for every currency: `price_usd`, `value_eur`, `total_value_jpy` … */
export const CURRENCY_FIELD = /^(price|value|total_value)_[a-z]{3}$/

type Priced = { readonly [field: string]: unknown }
const fiat = (record: Priced, field: string): number | null | undefined => record[field] as number | null | undefined

/** `price_<ccy>` of a record: a number, null when no price is known, undefined when not asked for. */
export const priceIn = (record: Priced, currency: string) => fiat(record, `price_${currency.toLowerCase()}`)
/** `value_<ccy>` of a record (see priceIn). */
export const valueIn = (record: Priced, currency: string) => fiat(record, `value_${currency.toLowerCase()}`)
/** `total_value_<ccy>` of a balance list. */
export const totalValueIn = (list: Priced, currency: string) => fiat(list, `total_value_${currency.toLowerCase()}`)

/**
 * A record's amount in base units: `valueRaw`/`balanceRaw` when the service sent it, else the decimal
 * string read with its own decimals (it carries exactly the asset's decimals).
 */
export function baseUnitsOf(record: Transfer | Erc20Transfer | Balance | NftTransfer | TransactionNetLine): bigint {
  const raw = record.valueRaw ?? record.balanceRaw
  if (typeof raw === 'string') return BigInt(raw)
  const amount = (record.value ?? record.balance ?? record.amount) as string
  return toBaseUnits(amount, decimalsOf(amount))
}
