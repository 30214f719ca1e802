import { ANY_TOKEN } from '../../../domain/on-demand.ts'
import type { EvmChainProfile } from './profile.ts'

export type { EvmChainProfile, NativeAlias, NativeLedger, Unattributed } from './profile.ts'
export { unattributedIn } from './profile.ts'

/**
 * The 19 EVM chains' profiles. A chain not listed (a test chain, a new chain) reads as a plain EVM
 * chain: `PLAIN`. Short names in sources: OPS = ethereum-optimism/specs `specs/protocol/…`,
 * BS = blockscout/blockscout, RT = erigontech/rpc-tests `integration/…`.
 */

const GAS_ONLY = { l1Fee: false, operatorFee: false, blobGas: false, feeCurrency: false } as const

/** gasUsed × effectiveGasPrice (the transaction's gasPrice before London), nothing else. */
export const PLAIN: Omit<EvmChainProfile, 'chain'> = {
  fee: GAS_ONLY,
  withdrawals: 'none',
  blockRewards: false,
  nativeAliases: [],
  unattributed: [],
  sources: ['Ethereum yellow paper: fee = gasUsed × gas price; EIP-1559: effectiveGasPrice in the receipt'],
}

const OP_STACK_SOURCES = [
  'OPS deposits.md: deposit transactions (type 0x7e) mint `mint` to `from` before execution, kept when the call reverts, and buy no gas',
  'OPS exec-engine.md: fee = gasUsed × effectiveGasPrice + L1 data fee (receipt `l1Fee`); base fee and priority fee go to vaults',
  'docs.optimism.io operator fee (Isthmus): operatorFee = operatorFeeConstant + gasUsed × operatorFeeScalar / 1e6; viem op-stack/actions/estimateOperatorFee.ts',
  'BS apps/ethereum_jsonrpc/lib/ethereum_jsonrpc/receipt.ex: l1Fee, operatorFeeScalar, operatorFeeConstant receipt fields',
]

function opStack(chain: string, extra: Partial<EvmChainProfile> = {}): EvmChainProfile {
  return {
    chain,
    fee: { l1Fee: true, operatorFee: true, blobGas: false, feeCurrency: false },
    depositTxType: '0x7e',
    withdrawals: 'none',
    blockRewards: false,
    nativeAliases: [],
    unattributed: [],
    ...extra,
    sources: [...OP_STACK_SOURCES, ...(extra.sources ?? [])],
  }
}

const MERGE_BLOCK = 15_537_394

const ethereum: EvmChainProfile = {
  chain: 'ethereum',
  // EIP-4844: a blob transaction pays blobGasUsed × blobGasPrice (burned) besides its gas
  fee: { l1Fee: false, operatorFee: false, blobGas: true, feeCurrency: false },
  // EIP-4895: withdrawals credit `address` with `amount` Gwei after the block's transactions, with no transaction
  withdrawals: 'native',
  // RT mainnet/trace_block/test_01.json (block 4,417,196): `reward` entries, rewardType block and uncle
  blockRewards: true,
  nativeAliases: [],
  unattributed: [
    {
      asset: 'native',
      toBlock: MERGE_BLOCK - 1,
      reason:
        'block and uncle rewards before the merge are read from trace_block `reward` entries; a node without trace_block (debug_traceBlockByNumber or no traces) does not give them',
      closedBy: 'trace_block',
    },
    {
      asset: 'native',
      fromBlock: 1_920_000,
      toBlock: 1_920_000,
      reason:
        'the DAO fork moved the balances of the DAO accounts to the refund contract 0xbf4ed7b27f1d666546e30d74d50d173d20bca754 with no transaction (go-ethereum consensus/misc/dao.go)',
    },
  ],
  sources: ['EIP-4844', 'EIP-4895', 'EIP-658 (no receipt status before Byzantium)', 'RT mainnet/trace_block/test_01.json'],
}

const PROFILES: readonly EvmChainProfile[] = [
  ethereum,
  {
    chain: 'bsc',
    ...PLAIN,
    unattributed: [
      {
        asset: 'native',
        reason:
          'fees collect at the system address and reach the validator by SetBalance/AddBalance with no transaction; system transactions pay SystemReward and ValidatorSet.deposit (bnb-chain/bsc consensus/parlia/parlia.go distributeIncoming)',
      },
    ],
    sources: ['bnb-chain/bsc consensus/parlia/parlia.go'],
  },
  {
    chain: 'polygon',
    ...PLAIN,
    // maticnetwork/bor core/bor_fee_log.go: LogTransfer/LogFeeTransfer at 0x…1010 repeat native moves with
    // before/after balances; they are not ERC-20 Transfer logs, and the contract's own Transfer logs repeat POL moves
    nativeAliases: [{ contract: '0x0000000000000000000000000000000000001010', mode: 'repeats' }],
    // state-sync transactions (from and to the zero address, appended to the block) have no trace: RT
    // polygon-pos/debug_traceTransaction/test_01.json answers []; Bor's block tracer leaves them out unless
    // borTraceEnabled (maticnetwork/bor eth/tracers/api.go)
    untracedSender: '0x0000000000000000000000000000000000000000',
    unattributed: [
      {
        asset: 'native',
        reason:
          'bridge deposits arrive by state sync: system calls outside the transaction list (synthetic receipts in Bor; PIP-74 0x7F transactions) that the records do not read yet',
      },
    ],
    sources: [
      'docs.polygon.technology Bor state sync',
      'maticnetwork/bor core/bor_fee_log.go',
      'PIP-74',
      'RT polygon-pos (a state-sync transaction, its receipt and its empty trace)',
    ],
  },
  {
    chain: 'arbitrum',
    // OffchainLabs/nitro arbos/tx_processor.go: L1 cost is charged as gas (receipt gasUsedForL1 is part of gasUsed)
    ...PLAIN,
    unattributed: [
      {
        asset: 'native',
        reason:
          'ArbOS deposits (0x64), retryable submissions (0x69: deposit, submission fee, refunds) and retries (0x68) mint and move ETH outside call traces, visible only as the callTracer beforeEVMTransfers/afterEVMTransfers (OffchainLabs/go-ethereum eth/tracers/native/tracer_arbitrum.go), not read yet',
      },
      {
        asset: 'native',
        toBlock: 22_207_816,
        reason: 'blocks before Nitro (22,207,817) are served only by the classic node through arbtrace_*, which is not read',
      },
    ],
    sources: ['OffchainLabs/nitro arbos/tx_processor.go', 'OffchainLabs/go-ethereum eth/tracers/native/tracer_arbitrum.go'],
  },
  opStack('optimism', {
    unattributed: [
      {
        asset: 'native',
        toBlock: 105_235_062,
        reason:
          'before Bedrock (block 105,235,063) ETH was the ERC-20 LegacyERC20ETH at 0xdeaddeaddeaddeaddeaddeaddeaddeaddead0000, served only by Legacy Geth',
      },
    ],
    sources: ['OPS superchain-upgrades / Bedrock migration: first Bedrock block 105,235,063'],
  }),
  opStack('base'),
  opStack('zora'),
  opStack('mode'),
  opStack('manta', {
    sources: ['Manta Pacific posts data to Celestia: its l1Fee is what the node charges, taken as the receipt says'],
  }),
  opStack('blast', {
    unattributed: [
      {
        asset: 'native',
        reason:
          'Blast ETH rebases: balance = shares × the SharesBase price at 0x4300000000000000000000000000000000000000, yield accrues with no transaction or event (docs.blast.io, indexing balances)',
      },
    ],
    sources: ['docs.blast.io: ETH yield and the SharesBase price'],
  }),
  {
    chain: 'mantle',
    // mantlenetworkio/op-geth core/state_transition.go: L1 cost is converted into gas (scaled by tokenRatio);
    // adding the receipt's l1Fee would count it twice
    ...PLAIN,
    depositTxType: '0x7e',
    unattributed: [
      {
        asset: 'native',
        reason:
          'sponsored transactions: a sponsor, not the sender, may pay the fee (mantlenetworkio/op-geth core/state_transition.go)',
      },
      {
        asset: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead1111',
        reason:
          'bridge deposits mint BVM_ETH with a Mint(address,uint256) event, not Transfer (mantlenetworkio/mantle BVM_ETH.sol)',
      },
    ],
    sources: ['mantlenetworkio/op-geth core/state_transition.go', 'mantlenetworkio/mantle BVM_ETH.sol (ETH is an ERC-20 here)'],
  },
  {
    chain: 'celo',
    ...PLAIN,
    // L2 since block 31,056,500: OP-stack fees and deposits. CIP-64: a transaction naming a feeCurrency pays its
    // fee in that ERC-20 through debitGasFees/creditGasFees, not in CELO (celo-org/celo-proposals CIP-64)
    fee: { l1Fee: true, operatorFee: true, blobGas: false, feeCurrency: true },
    depositTxType: '0x7e',
    // specs.celo.org token duality: the CELO token contract moves the native balance through the 0xfd precompile
    // with zero call value and emits Transfer; native sends (call value) emit none: its Transfer logs are native moves
    nativeAliases: [{ contract: '0x471ece3750da237f93b8e339c536989b8978a438', mode: 'moves' }],
    unattributed: [
      {
        asset: 'native',
        toBlock: 31_056_499,
        reason:
          'in the L1 era, epoch rewards were paid at epoch blocks with logs that belong to no transaction (BS apps/indexer/lib/indexer/fetcher/celo/epoch_logs.ex), and gateway fees (gatewayFee to gatewayFeeRecipient) are not read',
      },
      {
        asset: ANY_TOKEN,
        reason:
          'if this token is one of the fee currencies Celo governance lists (FeeCurrencyDirectory; FeeCurrencyWhitelist in the L1 era), fees paid in it (CIP-64 feeCurrency) are debited from the sender and credited to the fee recipients by debitGasFees/creditGasFees, system calls around the transaction: where their token moves are not among its logs, no record holds them (an adapter, e.g. for USDC, debits the token behind it); if it is not, the records miss a movement: please report it with the block range',
      },
    ],
    sources: [
      'specs.celo.org token duality, CIP-64',
      'BS apps/indexer/lib/indexer/transform/celo/transaction_token_transfers.ex',
    ],
  },
  {
    chain: 'zksync',
    ...PLAIN,
    // matter-labs/era-contracts system-contracts/contracts/L2BaseToken.sol: ETH lives in 0x…800A; every move, the
    // fee to the bootloader (0x…8001) and refunds included, emits Transfer; deposits emit Mint, withdrawals Withdrawal.
    // Recorded receipts (matter-labs/block-explorer) show the fee moved is not gasUsed × effectiveGasPrice, and a
    // paymaster, not the sender, paying it: the contract's logs are the ledger.
    nativeLedger: {
      contract: '0x000000000000000000000000000000000000800a',
      bootloader: '0x0000000000000000000000000000000000008001',
    },
    sources: ['matter-labs/era-contracts system-contracts/contracts/L2BaseToken.sol'],
  },
  {
    chain: 'gnosis',
    ...PLAIN,
    // gnosischain/specs: withdrawals pay GNO (a token), not xDAI
    withdrawals: 'token',
    unattributed: [
      {
        asset: 'native',
        reason:
          'xDai bridge deposits are minted by the BlockRewardAuRa.reward() system call, outside transactions (gnosischain/specs execution/posdao-post-merge.md)',
      },
    ],
    sources: ['gnosischain/specs execution/posdao-post-merge.md', 'RT gnosis (blocks with withdrawals)'],
  },
  {
    chain: 'avalanche',
    ...PLAIN,
    unattributed: [
      {
        asset: 'native',
        reason:
          'atomic imports and exports in blockExtraData change AVAX balances with no EVM transaction (nAVAX × 10⁹; ava-labs/coreth plugin/evm/atomic/import_tx.go)',
      },
    ],
    sources: ['ava-labs/coreth plugin/evm/atomic/import_tx.go'],
  },
  {
    chain: 'scroll',
    ...PLAIN,
    // docs.scroll.io transaction fees: L2 fee + the receipt's l1Fee; L1 messages pay none
    fee: { l1Fee: true, operatorFee: false, blobGas: false, feeCurrency: false },
    sources: ['docs.scroll.io, transaction fees'],
  },
  { chain: 'linea', ...PLAIN, sources: ['docs.linea.build gas fees: L1 cost is in the gas price'] },
  {
    chain: 'polygon-zkevm',
    ...PLAIN,
    sources: ['docs.polygon.technology zkEVM effective gas price: the receipt effectiveGasPrice, never tx.gasPrice'],
  },
  {
    chain: 'fantom',
    ...PLAIN,
    unattributed: [
      {
        asset: 'native',
        reason: 'epoch sealing through the SFC contract and the move to Sonic (December 2024) are not verified',
      },
    ],
    sources: ['not verified: Fantom Opera documentation'],
  },
]

const BY_CHAIN = new Map(PROFILES.map((profile) => [profile.chain, profile]))

/** The profile of `chain`, or the plain EVM one. */
export function profileOf(chain: string): EvmChainProfile {
  return BY_CHAIN.get(chain) ?? { chain, ...PLAIN }
}

/** Every profiled chain (the 19 EVM chains of the registry). */
export const PROFILED_CHAINS: readonly string[] = PROFILES.map((profile) => profile.chain)
