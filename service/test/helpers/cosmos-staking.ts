import { bech32 } from '@scure/base'
import type { CosmosTxResponse } from '../../src/chains/explorers/cosmos.ts'
import type { CosmosBlock } from './cosmos-lcd.ts'
import {
  completedUnbonding,
  cosmosTx,
  finalizeBlockEvents,
  msgDelegate,
  msgSend,
  msgUndelegate,
  txHeight,
  txTime,
} from './cosmos-sdk-50.ts'

/*
 * A staker on Cosmos Hub, generated in SDK 0.50's shapes: funded with 10 ATOM, delegating 4, undelegating
 * 1.5 (0.012345 of rewards withdrawn on the way), the unbonding completing 21 days later in a block's
 * end-block events, then a send of 0.1 back; each of its three transactions pays a 0.005 ATOM fee.
 */

export const STAKER = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(10)))
export const FUNDER = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(11)))
export const VALIDATOR = 'cosmosvaloper157v7tczs40axfgejp2m43kwuzqe0wsy0rv8puv'
const UNBONDING_BLOCKS = 302_400
const completesAt = 2_002 + UNBONDING_BLOCKS

/** The staker's transactions, for the local LCD. */
export const stakingTxs: CosmosTxResponse[] = [
  cosmosTx({ n: 2_000, signer: FUNDER, messages: [msgSend(FUNDER, STAKER, 10_000_000n)] }),
  cosmosTx({ n: 2_001, signer: STAKER, fee: 5_000n, messages: [msgDelegate(STAKER, VALIDATOR, 4_000_000n)] }),
  cosmosTx({
    n: 2_002,
    signer: STAKER,
    fee: 5_000n,
    messages: [msgUndelegate(STAKER, VALIDATOR, 1_500_000n, { rewards: 12_345n, completionTime: txTime(completesAt) })],
  }),
  cosmosTx({ n: completesAt + 1, signer: STAKER, fee: 5_000n, messages: [msgSend(STAKER, FUNDER, 100_000n)] }),
]

export const COMPLETION_BLOCK_HASH = 'C0'.repeat(32)

/** The block whose end-block events return the unbonded stake, for the local CometBFT RPC. */
export const completionBlock: CosmosBlock = {
  height: txHeight(completesAt),
  hash: COMPLETION_BLOCK_HASH,
  time: txTime(completesAt),
  events: finalizeBlockEvents(completedUnbonding(STAKER, VALIDATOR, 1_500_000n)),
}
