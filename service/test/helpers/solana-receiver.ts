import type { SolanaTransaction } from '../../src/chains/explorers/solana.ts'
import type { FetchSignatures, SignatureInfo } from '../../src/chains/explorers/solana-signatures.ts'
import type { ExplorerCall } from './explorer-server.ts'
import type { solanaRpc } from './solana-rpc.ts'
import { generatedAddress, generatedTokenTransfer } from './solana-transactions.ts'

/*
 * CbYf9…: a wallet credited only through its token accounts. Recorded: 3HdFhHNy… mints 151571 of
 * EJhqX… to its account E8Bw6… and 4NAC7cK6… 1297259 of FbQYj… to FX5PBD…, neither naming the
 * wallet. Generated in the recorded shape before them, so that the accounts' balances are what those
 * transactions found: a third party sends EJhqX… to E8Bw6… and FbQYj… to FX5PBD…, and 1000 EJhqX… to
 * another account of the wallet, which the wallet then empties into E8Bw6… and closes (the one
 * transaction naming the wallet).
 */
export const RECEIVER = 'CbYf9QNrkVgNRCMTDiVdvzMqSzXh8AAgnrKAoTfEACdh'
export const EJHQX = 'EJhqXKJEncSx1HJjS5ZpKdiKGGgLiRgNPvo8JZvw5Guj'
export const FBQYJ = 'FbQYjLEq1vNCszmxmxZDoFiy9fgyfdPxzt9Fu5zk5jJ4'
export const EJHQX_ACCOUNT = 'E8Bw6Zt6NxjaHmHyhkXsq4UiLbHzicLKmhUAfCz1bgdU'
export const FBQYJ_ACCOUNT = 'FX5PBDb4nVTs4f9dSkUsj55rEYrCkBs9e7xZpDHqDeVM'
export const MINT_TO_EJHQX_ACCOUNT = '3HdFhHNyf2uKrW6zb6FeYZpjcRyvprQuQH4oVkmc4uuCAhoEUAEkPHgUzRubf8npmHnziRs4HokFTgAkGPyzso6D'
export const MINT_TO_FBQYJ_ACCOUNT = '4NAC7cK6cRPFZJaJVehTJ2Pstj63oWjcDnnFoPARtsXb4qZiHhQeQmG9wbZg2yTkNPm37h13hP9vdZQdJReHiLBF'
export const CLOSED_ACCOUNT = generatedAddress('a second EJhqX account of CbYf9, closed')
export const SENDER = generatedAddress('a third party')
export const SENDER_EJHQX = generatedAddress('the third party’s EJhqX account')
export const SENDER_FBQYJ = generatedAddress('the third party’s FbQYj account')
export const sent = { ejhqx: 944_187_830_963n, fbqyj: 7_860_778_179_540n, toClosed: 1000n }
export const thirdParty = {
  ejhqx: generatedTokenTransfer({
    slot: 254_900_000,
    payer: SENDER,
    source: { account: SENDER_EJHQX, owner: SENDER, before: 10n ** 15n },
    destination: { account: EJHQX_ACCOUNT, owner: RECEIVER, before: 0n },
    mint: EJHQX,
    decimals: 9,
    amount: sent.ejhqx,
  }),
  fbqyj: generatedTokenTransfer({
    slot: 254_900_100,
    payer: SENDER,
    source: { account: SENDER_FBQYJ, owner: SENDER, before: 10n ** 16n },
    destination: { account: FBQYJ_ACCOUNT, owner: RECEIVER, before: 0n },
    mint: FBQYJ,
    decimals: 9,
    amount: sent.fbqyj,
  }),
  toClosed: generatedTokenTransfer({
    slot: 254_950_000,
    payer: SENDER,
    source: { account: SENDER_EJHQX, owner: SENDER, before: 10n ** 15n - sent.ejhqx },
    destination: { account: CLOSED_ACCOUNT, owner: RECEIVER, before: 0n },
    mint: EJHQX,
    decimals: 9,
    amount: sent.toClosed,
  }),
}
export const emptyAndClose = generatedTokenTransfer({
  slot: 255_000_000,
  payer: RECEIVER,
  source: { account: CLOSED_ACCOUNT, owner: RECEIVER, before: sent.toClosed },
  destination: { account: EJHQX_ACCOUNT, owner: RECEIVER, before: sent.ejhqx },
  mint: EJHQX,
  decimals: 9,
  amount: sent.toClosed,
  close: true,
})
export const receiverHistory = [thirdParty.ejhqx, thirdParty.fbqyj, thirdParty.toClosed, emptyAndClose]
export const signatureOf = (t: SolanaTransaction) => t.transaction.signatures[0] as string
export const names = (t: SolanaTransaction, address: string) =>
  [
    ...t.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey)),
    ...(t.meta?.loadedAddresses?.writable ?? []),
    ...(t.meta?.loadedAddresses?.readonly ?? []),
  ].includes(address)

/** `getSignaturesForAddress` of a stand-in, called in process with its own `limit`. */
export const signaturesFrom =
  (rpc: ReturnType<typeof solanaRpc>, limit: number): FetchSignatures =>
  async (address, cursor) => {
    const answer = rpc.answer({
      method: 'POST',
      path: '/',
      query: new URLSearchParams(),
      body: { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [address, { limit, ...cursor }] },
    })
    if (answer.status !== undefined) throw new Error(JSON.stringify(answer.body))
    return answer.body as SignatureInfo[]
  }

/** A JSON-RPC call to a stand-in, in process. */
export const ask = (rpc: ReturnType<typeof solanaRpc>, method: string, params: unknown[]) =>
  rpc.answer({
    method: 'POST',
    path: '/',
    query: new URLSearchParams(),
    body: { jsonrpc: '2.0', id: 7, method, params },
  } as ExplorerCall)
