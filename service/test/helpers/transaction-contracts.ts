import { type Artifact, compileSolidity } from './contracts.ts'

export type TransactionArtifacts = Record<'PoolToken' | 'MarketNft' | 'TinyPool' | 'NftMarket' | 'Airdropper', Artifact>

/** The contracts of test/fixtures/contracts/Transactions.sol (compiled as contracts.ts compiles, cached). */
export const compileTransactionContracts = (): Promise<TransactionArtifacts> => compileSolidity('Transactions.sol')
