import type { Token, Transfer } from '../../domain/records.ts'
import type { JsonRpcClient } from '../../lib/json-rpc.ts'
import type { ExplorerPage, ExplorerPosition, ExplorerSource } from './explorer-source.ts'
import { addTo, type Movement, pairChanges, toTransfer, touches, txIndexFromHash } from './movements.ts'
import { groupByBlock, mapConcurrently } from './pages.ts'
import { createMintLabels } from './solana-metadata.ts'
import {
  type AddressProgress,
  backfillDone,
  type Progress,
  readNewer,
  readOlderPage,
  type SignatureInfo,
  withAddresses,
} from './solana-signatures.ts'

/*
 * Solana through its JSON-RPC: `getSignaturesForAddress` (newest first, `before`/`until` cursors,
 * up to 1000 a page) of the wallet and of each of its token accounts (`getTokenAccountsByOwner`, SPL
 * Token and Token-2022, and closed ones seen in the transactions read: a token transfer to the
 * wallet names its token account, not the wallet), `getTransaction` (jsonParsed) per signature,
 * `getBalance`. Final = `finalized` commitment: every call asks for it, so nothing read can be
 * rolled back.
 */

const COMMITMENT = 'finalized'
const SIGNATURES_PER_PAGE = 1000
/** Transactions fetched at once (the rate limiter still spaces the calls). */
const CONCURRENT_TRANSACTIONS = 8
export const TOKEN_PROGRAMS = ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']

type TokenBalance = {
  accountIndex: number
  mint: string
  owner?: string
  uiTokenAmount: { amount: string; decimals: number }
}

type ParsedInstruction = {
  program?: string
  programId?: string
  parsed?: { type?: string; info?: Record<string, unknown> } | string
}

export type SolanaTransaction = {
  slot: number
  blockTime: number | null
  meta: {
    err: unknown
    fee: number
    preBalances: number[]
    postBalances: number[]
    preTokenBalances?: TokenBalance[]
    postTokenBalances?: TokenBalance[]
    innerInstructions?: { index: number; instructions: ParsedInstruction[] }[]
    loadedAddresses?: { writable: string[]; readonly: string[] }
  } | null
  transaction: {
    signatures: string[]
    message: { accountKeys: ({ pubkey: string } | string)[]; instructions: ParsedInstruction[] }
  }
}

/** The account keys in balance order: the message's own, then the lookup tables' (writable, then read-only). */
function accountKeysOf(tx: SolanaTransaction): string[] {
  const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey))
  const loaded = tx.meta?.loadedAddresses
  // jsonParsed already lists loaded addresses in accountKeys; the json encoding does not
  if (loaded !== undefined && keys.length < (tx.meta?.preBalances.length ?? 0)) keys.push(...loaded.writable, ...loaded.readonly)
  return keys
}

/** Lamports moved by a parsed System Program instruction: its source, destination and amount. */
function systemMove(instruction: ParsedInstruction): { from: string; to: string; value: bigint } | undefined {
  if (instruction.program !== 'system' || typeof instruction.parsed !== 'object') return undefined
  const info = instruction.parsed.info ?? {}
  const lamports = info.lamports
  if (typeof lamports !== 'number' && typeof lamports !== 'string') return undefined
  const value = BigInt(lamports)
  switch (instruction.parsed.type) {
    case 'transfer':
    case 'transferWithSeed':
      return { from: String(info.source), to: String(info.destination), value }
    case 'createAccount':
    case 'createAccountWithSeed':
      return { from: String(info.source), to: String(info.newAccount), value }
    case 'withdrawNonceAccount':
      return { from: String(info.nonceAccount), to: String(info.destination), value }
    default:
      return undefined
  }
}

/**
 * Every movement of a transaction, the same whoever asks: the fee (charged to the fee payer, the
 * first account), the System Program's transfers in execution order (inner instructions after their
 * instruction), lamports that changed hands otherwise (a closed account's rent, program-made moves)
 * paired from losers to gainers, and each SPL token's changes per owner paired likewise. A failed
 * transaction moves nothing but its fee. Each account's records add up to its balance change.
 */
export function transactionMovements(tx: SolanaTransaction): Movement[] {
  const meta = tx.meta
  if (meta === null) return []
  const keys = accountKeysOf(tx)
  const payer = keys[0] as string
  const movements: Movement[] = []
  if (meta.fee > 0) movements.push({ type: 'fee', from: payer, to: null, value: BigInt(meta.fee), contractAddress: null })
  if (meta.err !== null && meta.err !== undefined) return movements

  const explained = new Map<string, bigint>()
  const inner = new Map((meta.innerInstructions ?? []).map((group) => [group.index, group.instructions]))
  tx.transaction.message.instructions.forEach((instruction, index) => {
    for (const candidate of [instruction, ...(inner.get(index) ?? [])]) {
      const move = systemMove(candidate)
      if (move === undefined || move.value === 0n) continue
      movements.push({ type: 'native', from: move.from, to: move.to, value: move.value, contractAddress: null })
      addTo(explained, move.from, -move.value)
      addTo(explained, move.to, move.value)
    }
  })
  const residual = keys.map((party, i) => ({
    party,
    delta:
      BigInt(meta.postBalances[i] ?? 0) -
      BigInt(meta.preBalances[i] ?? 0) +
      (i === 0 ? BigInt(meta.fee) : 0n) -
      (explained.get(party) ?? 0n),
  }))
  for (const move of pairChanges(residual)) movements.push({ type: 'native', ...move, contractAddress: null })

  // SPL: each owner's change per mint (an account with no owner listed stands for itself)
  const changes = new Map<string, Map<string, bigint>>()
  const tokenChange = (balance: TokenBalance, sign: bigint) => {
    const owner = balance.owner ?? keys[balance.accountIndex] ?? `#${balance.accountIndex}`
    const byOwner = changes.get(balance.mint) ?? new Map<string, bigint>()
    changes.set(balance.mint, byOwner)
    addTo(byOwner, owner, sign * BigInt(balance.uiTokenAmount.amount))
  }
  for (const balance of meta.preTokenBalances ?? []) tokenChange(balance, -1n)
  for (const balance of meta.postTokenBalances ?? []) tokenChange(balance, 1n)
  for (const [mint, byOwner] of changes) {
    const deltas = [...byOwner].map(([party, delta]) => ({ party, delta }))
    for (const move of pairChanges(deltas)) movements.push({ type: 'spl', ...move, contractAddress: mint })
  }
  return movements
}

/** The tokens a transaction moves, with the decimals its balances state. */
export function transactionTokens(tx: SolanaTransaction): Token[] {
  const tokens = new Map<string, Token>()
  for (const balance of [...(tx.meta?.preTokenBalances ?? []), ...(tx.meta?.postTokenBalances ?? [])]) {
    tokens.set(balance.mint, {
      contractAddress: balance.mint,
      name: null,
      symbol: null,
      decimals: balance.uiTokenAmount.decimals,
    })
  }
  return [...tokens.values()]
}

/** The records of a transaction that move value of `address`. */
export function walletTransfers(tx: SolanaTransaction, address: string): Transfer[] {
  const txHash = tx.transaction.signatures[0] as string
  const at = { blockNumber: tx.slot, txIndex: txIndexFromHash(txHash), txHash }
  return transactionMovements(tx)
    .map((movement, seq) => toTransfer(at, seq, movement))
    .filter(touches(address))
}

/** The token accounts `owner` held in a transaction (closed ones included), from its token balances. */
export function ownedTokenAccounts(tx: SolanaTransaction, owner: string): string[] {
  const keys = accountKeysOf(tx)
  const balances = [...(tx.meta?.preTokenBalances ?? []), ...(tx.meta?.postTokenBalances ?? [])]
  return [...new Set(balances.filter((b) => b.owner === owner).map((b) => keys[b.accountIndex]))].filter(
    (key): key is string => key !== undefined,
  )
}

/**
 * Per address read (the wallet, its token accounts), how far. A position stored before token
 * accounts were read is the wallet's own `{ newest, oldest, done }`: its token accounts are then
 * read from their newest transaction.
 */
type SolanaPosition = { addresses: Progress }

function progressOf(address: string, stored: ExplorerPosition | undefined): Progress {
  if (stored === undefined) return {}
  if ('addresses' in stored) return (stored as SolanaPosition).addresses
  return { [address]: stored as AddressProgress }
}

type TokenAccount = { pubkey: string; mint: string; amount: bigint; decimals: number }

export function createSolanaSource({ rpc, chain = 'solana' }: { rpc: JsonRpcClient; chain?: string }): ExplorerSource {
  const signatures = (address: string, cursor: { before?: string; until?: string }) =>
    rpc.request<SignatureInfo[]>('getSignaturesForAddress', [
      address,
      { limit: SIGNATURES_PER_PAGE, commitment: COMMITMENT, ...cursor },
    ])
  const paging = { limit: SIGNATURES_PER_PAGE, concurrency: CONCURRENT_TRANSACTIONS }
  /** Mints' names and symbols (Metaplex or Token-2022's extension): the spam reasons compare them. */
  const withLabels = createMintLabels(rpc, COMMITMENT)

  /** The wallet's open token accounts, SPL Token's then Token-2022's. */
  async function tokenAccounts(owner: string): Promise<TokenAccount[]> {
    const out: TokenAccount[] = []
    for (const programId of TOKEN_PROGRAMS) {
      const accounts = await rpc.request<{
        value: {
          pubkey: string
          account: { data: { parsed: { info: { mint: string; tokenAmount: { amount: string; decimals: number } } } } }
        }[]
      }>('getTokenAccountsByOwner', [owner, { programId }, { encoding: 'jsonParsed', commitment: COMMITMENT }])
      for (const { pubkey, account } of accounts.value) {
        const { mint, tokenAmount } = account.data.parsed.info
        out.push({ pubkey, mint, amount: BigInt(tokenAmount.amount), decimals: tokenAmount.decimals })
      }
    }
    return out
  }

  /** The page of these signatures' transactions, and the wallet's token accounts they show. */
  async function toPage(address: string, list: readonly SignatureInfo[]) {
    const txs = await mapConcurrently(list, CONCURRENT_TRANSACTIONS, ({ signature }) =>
      rpc.request<SolanaTransaction>('getTransaction', [
        signature,
        { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: COMMITMENT },
      ]),
    )
    const tokens = new Map<string, Token>()
    const accounts = new Set<string>()
    const records = txs.map((tx) => {
      for (const token of transactionTokens(tx)) tokens.set(token.contractAddress, token)
      for (const account of ownedTokenAccounts(tx, address)) accounts.add(account)
      return {
        block: { number: tx.slot, hash: '', timestamp: tx.blockTime ?? 0 },
        transfers: walletTransfers(tx, address),
      }
    })
    return { blocks: groupByBlock(records), tokens: await withLabels([...tokens.values()]), accounts }
  }

  return {
    chain,

    async getHead() {
      const slot = await rpc.request<number>('getSlot', [{ commitment: COMMITMENT }])
      const time = await rpc.request<number | null>('getBlockTime', [slot])
      return { number: slot, hash: '', parentHash: '', timestamp: time ?? Math.floor(Date.now() / 1000) }
    },

    /*
     * One read: the wallet's token accounts (2 calls), then the backfill of every address not read to
     * its end as pages (one signature list per such address, then one getTransaction per signature),
     * token accounts found in the transactions joining from the next page; then, for the addresses a
     * previous read had begun, what is newer than the newest read, as one page.
     */
    async *readHistory(address, stored) {
      let progress = progressOf(address, stored)
      const begun = Object.keys(progress)
      progress = withAddresses(progress, [address, ...(await tokenAccounts(address)).map((a) => a.pubkey)])
      let newerPending = begun.length > 0
      for (;;) {
        while (!backfillDone(progress)) {
          const older = await readOlderPage(signatures, progress, paging)
          const { accounts, blocks, tokens } = await toPage(address, older.signatures)
          progress = withAddresses(older.progress, accounts)
          const position: SolanaPosition = { addresses: progress }
          yield { blocks, tokens, position, complete: backfillDone(progress) && !newerPending } satisfies ExplorerPage
        }
        if (!newerPending) return
        newerPending = false
        const newer = await readNewer(signatures, progress, begun, paging)
        const { accounts, blocks, tokens } = await toPage(address, newer.signatures)
        progress = withAddresses(newer.progress, accounts)
        const position: SolanaPosition = { addresses: progress }
        yield { blocks, tokens, position, complete: backfillDone(progress) } satisfies ExplorerPage
      }
    },

    async readBalances(address) {
      const balance = await rpc.request<{ context: { slot: number }; value: number }>('getBalance', [
        address,
        { commitment: COMMITMENT },
      ])
      const byMint = new Map<string, { amount: bigint; decimals: number }>()
      for (const { mint, amount, decimals } of await tokenAccounts(address)) {
        byMint.set(mint, { amount: (byMint.get(mint)?.amount ?? 0n) + amount, decimals })
      }
      return {
        head: { number: balance.context.slot, hash: '', parentHash: '', timestamp: Math.floor(Date.now() / 1000) },
        balances: [
          { contractAddress: null, type: 'native', amount: BigInt(balance.value) },
          ...[...byMint].map(([mint, { amount }]) => ({ contractAddress: mint, type: 'spl', amount })),
        ],
        tokens: await withLabels(
          [...byMint].map(([mint, { decimals }]) => ({ contractAddress: mint, name: null, symbol: null, decimals })),
        ),
      }
    },
  }
}

export type { ExplorerPosition }
