import { describe, expect, test } from 'vitest'
import type { RecordType } from '../records.ts'
import { AIRDROP_MIN_RECIPIENTS, categorise, type Movement, type TransactionFacts } from './categories.ts'

const WALLET = '0xwallet'
const ZERO = '0x0000000000000000000000000000000000000000'
const OTHER = '0xother'

/** A movement of the wallet: `in` from OTHER, `out` to OTHER, `self` to itself, unless from/to say otherwise. */
function move(
  type: RecordType,
  side: Movement['side'],
  asset = '',
  label = asset === '' ? 'ETH' : asset,
  other: string | null = OTHER,
): Movement {
  const from = side === 'in' ? other : WALLET
  const to = side === 'out' ? other : WALLET
  return { type, side, from, to, asset, label }
}

const facts = (overrides: Partial<TransactionFacts> = {}): TransactionFacts => ({
  status: 'success',
  initiatedByWallet: true,
  paidFee: true,
  zeroAddress: ZERO,
  changeIsNoMovement: false,
  recipientsPerSender: new Map(),
  ...overrides,
})

const NOT_MINE = { initiatedByWallet: false, paidFee: false }
const ruleOf = (movements: Movement[], f: TransactionFacts = facts()) => categorise(movements, f).rule.id

type Case = [name: string, movements: Movement[], facts: TransactionFacts, rule: string]

function table(cases: Case[]) {
  test.each(cases)('%s', (_name, movements, f, rule) => {
    const { category, rule: fired } = categorise(movements, f)
    expect({ category, id: fired.id }).toEqual({ category: rule.split('.')[0], id: rule })
    expect(fired.explanation.length).toBeGreaterThan(10)
  })
}

describe('categorise(): each rule', () => {
  describe('fee-only', () =>
    table([
      ['a failed transaction', [], facts({ status: 'failed' }), 'fee-only.failed'],
      ['a call that moved nothing', [], facts(), 'fee-only.nothing-moved'],
      ['nothing moved on an account chain', [], facts({ changeIsNoMovement: false }), 'fee-only.nothing-moved'],
    ]))

  describe('self', () =>
    table([
      ['a UTXO consolidation (only the fee left)', [], facts({ changeIsNoMovement: true }), 'self.consolidation'],
      ['coin to itself', [move('native', 'self')], facts(), 'self.to-itself'],
      ['a token to itself', [move('erc20', 'self', '0xusdc', 'USDC')], facts(), 'self.to-itself'],
    ]))

  describe('deposit, withdrawal, reward, yield', () =>
    table([
      ['a bridge deposit', [move('deposit', 'in', '', 'ETH', null)], facts(NOT_MINE), 'deposit.record'],
      [
        'a deposit with its own value sent on',
        [move('deposit', 'in', '', 'ETH', null), move('native', 'out')],
        facts(),
        'deposit.record',
      ],
      ['a beacon withdrawal', [move('withdrawal', 'in', '', 'ETH', null)], facts(NOT_MINE), 'withdrawal.record'],
      ['a coinbase', [move('reward', 'in', '', 'BTC', null)], facts(NOT_MINE), 'reward.record'],
      ['a rebase', [move('yield', 'in', '', 'ETH', null)], facts(NOT_MINE), 'yield.record'],
    ]))

  describe('mint and burn', () =>
    table([
      ['an NFT from the zero address', [move('erc721', 'in', '0xnft:1', 'PUNK', ZERO)], facts(), 'mint.from-zero'],
      ['a paid mint', [move('native', 'out'), move('erc721', 'in', '0xnft:1', 'PUNK', ZERO)], facts(), 'mint.from-zero'],
      ['a token minted to the wallet', [move('trc20', 'in', 'Tusdt', 'USDT', ZERO)], facts(NOT_MINE), 'mint.from-zero'],
      ['a token burnt', [move('erc20', 'out', '0xtok', 'TOK', ZERO)], facts(), 'burn.to-zero'],
      ['an NFT burnt', [move('erc1155', 'out', '0xnft:7', 'ITEM', ZERO)], facts(), 'burn.to-zero'],
    ]))

  describe('nft-purchase and nft-sale', () =>
    table([
      [
        'an NFT bought for ETH',
        [move('native', 'out'), move('erc721', 'in', '0xnft:1', 'PUNK')],
        facts(),
        'nft-purchase.fungible-for-nft',
      ],
      [
        'an NFT bought for a token',
        [move('erc20', 'out', '0xusdc', 'USDC'), move('erc1155', 'in', '0xnft:2', 'ITEM')],
        facts(),
        'nft-purchase.fungible-for-nft',
      ],
      [
        'an NFT sold for ETH',
        [move('erc721', 'out', '0xnft:1', 'PUNK'), move('internal', 'in')],
        facts(),
        'nft-sale.nft-for-fungible',
      ],
    ]))

  describe('swap', () =>
    table([
      ['ETH for a token', [move('native', 'out'), move('erc20', 'in', '0xusdc', 'USDC')], facts(), 'swap.fungible-for-fungible'],
      [
        'two tokens for one, with ETH refunded',
        [
          move('erc20', 'out', '0xa', 'A'),
          move('erc20', 'out', '0xb', 'B'),
          move('native', 'out'),
          move('internal', 'in'),
          move('erc20', 'in', '0xc', 'C'),
        ],
        facts(),
        'swap.fungible-for-fungible',
      ],
    ]))

  describe('airdrop', () =>
    table([
      [
        `a token given to ${AIRDROP_MIN_RECIPIENTS} addresses by its sender`,
        [move('erc20', 'in', '0xdrop', 'DROP')],
        facts({ ...NOT_MINE, recipientsPerSender: new Map([['0xdrop', AIRDROP_MIN_RECIPIENTS]]) }),
        'airdrop.one-to-many',
      ],
    ]))

  describe('one way', () =>
    table([
      ['coin received', [move('native', 'in')], facts(NOT_MINE), 'receive.only-in'],
      ['coin sent', [move('native', 'out')], facts(), 'send.only-out'],
      ['internal coin received', [move('internal', 'in')], facts(NOT_MINE), 'receive.only-in'],
      ['a token received', [move('erc20', 'in', '0xusdc', 'USDC')], facts(NOT_MINE), 'token-receive.only-in'],
      ['a token sent', [move('trc20', 'out', 'Tusdt', 'USDT')], facts(), 'token-send.only-out'],
      [
        'a token sent by a spender (transferFrom)',
        [move('erc20', 'out', '0xusdc', 'USDC')],
        facts(NOT_MINE),
        'token-send.only-out',
      ],
      ['an NFT received', [move('erc721', 'in', '0xnft:1', 'PUNK')], facts(NOT_MINE), 'nft-receive.only-in'],
      ['an NFT sent', [move('erc1155', 'out', '0xnft:1', 'ITEM')], facts(), 'nft-send.only-out'],
    ]))

  describe('contract-interaction', () =>
    table([
      ['the same asset out and back', [move('native', 'out'), move('internal', 'in')], facts(), 'contract-interaction.initiated'],
      [
        'someone else moved the same token out and in',
        [move('erc20', 'out', '0xa', 'A'), move('erc20', 'in', '0xa', 'A')],
        facts(NOT_MINE),
        'contract-interaction.undecided',
      ],
    ]))
})

describe('categorise(): precedence', () => {
  test('a failed transaction is fee-only even on a chain where change is no movement', () => {
    expect(ruleOf([], facts({ status: 'failed', changeIsNoMovement: true }))).toBe('fee-only.failed')
  })
  test('a deposit record names the transaction before a self movement or a swap', () => {
    const deposit = move('deposit', 'in', '', 'ETH', null)
    expect(ruleOf([deposit, move('native', 'self')])).toBe('deposit.record')
    expect(ruleOf([deposit, move('erc20', 'out', '0xa', 'A')])).toBe('deposit.record')
  })
  test('a reward before a coin received beside it', () => {
    expect(ruleOf([move('native', 'in'), move('reward', 'in', '', 'ETH', null)], facts(NOT_MINE))).toBe('reward.record')
  })
  test('self movements are left out of the later rules', () => {
    expect(ruleOf([move('native', 'self'), move('erc20', 'in', '0xa', 'A')], facts(NOT_MINE))).toBe('token-receive.only-in')
  })
  test('a mint paid with a token is a mint, not an nft-purchase', () => {
    expect(ruleOf([move('erc20', 'out', '0xa', 'A'), move('erc721', 'in', '0xn:1', 'N', ZERO)])).toBe('mint.from-zero')
  })
  test('minting liquidity tokens for two tokens is a mint, not a swap', () => {
    const movements = [
      move('erc20', 'out', '0xa', 'A'),
      move('erc20', 'out', '0xb', 'B'),
      move('erc20', 'in', '0xlp', 'LP', ZERO),
    ]
    expect(ruleOf(movements)).toBe('mint.from-zero')
  })
  test('burning liquidity tokens for two tokens is a burn, not a swap', () => {
    const movements = [move('erc20', 'out', '0xlp', 'LP', ZERO), move('erc20', 'in', '0xa', 'A'), move('erc20', 'in', '0xb', 'B')]
    expect(ruleOf(movements)).toBe('burn.to-zero')
  })
  test('without a zero address (no such address on the chain) nothing is a mint or a burn', () => {
    expect(ruleOf([move('erc20', 'in', '0xa', 'A', ZERO)], facts({ ...NOT_MINE, zeroAddress: undefined }))).toBe(
      'token-receive.only-in',
    )
  })
  test('NFTs for NFTs and a token is no purchase or sale: a swap of the fungible part does not apply either', () => {
    const movements = [move('erc721', 'out', '0xn:1', 'N'), move('erc721', 'in', '0xn:2', 'N'), move('erc20', 'in', '0xa', 'A')]
    expect(ruleOf(movements)).toBe('contract-interaction.initiated')
  })
  test('an NFT purchase before a swap: ETH out, a token refund and an NFT in', () => {
    const movements = [move('native', 'out'), move('erc20', 'in', '0xa', 'A'), move('erc721', 'in', '0xn:1', 'N')]
    expect(ruleOf(movements)).toBe('nft-purchase.fungible-for-nft')
  })
  test('an airdrop needs the wallet not to have initiated it', () => {
    const many = new Map([['0xdrop', 50]])
    expect(ruleOf([move('erc20', 'in', '0xdrop', 'DROP')], facts({ recipientsPerSender: many }))).toBe('token-receive.only-in')
    expect(ruleOf([move('erc20', 'in', '0xdrop', 'DROP')], facts({ ...NOT_MINE, recipientsPerSender: many }))).toBe(
      'airdrop.one-to-many',
    )
  })
  test(`an airdrop needs ${AIRDROP_MIN_RECIPIENTS} recipients of one sender, and is not coin`, () => {
    const few = new Map([['0xdrop', AIRDROP_MIN_RECIPIENTS - 1]])
    expect(ruleOf([move('erc20', 'in', '0xdrop', 'DROP')], facts({ ...NOT_MINE, recipientsPerSender: few }))).toBe(
      'token-receive.only-in',
    )
    const coin = new Map([['', 50]])
    expect(ruleOf([move('internal', 'in')], facts({ ...NOT_MINE, recipientsPerSender: coin }))).toBe('receive.only-in')
  })
  test('one way with mixed kinds: NFT before token before coin', () => {
    expect(
      ruleOf([move('native', 'in'), move('erc20', 'in', '0xa', 'A'), move('erc721', 'in', '0xn:1', 'N')], facts(NOT_MINE)),
    ).toBe('nft-receive.only-in')
    expect(ruleOf([move('native', 'out'), move('erc20', 'out', '0xa', 'A')])).toBe('token-send.only-out')
  })
})
