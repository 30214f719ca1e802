/**
 * The chain writer's old module name, kept only for files other engineers are editing right now
 * (main/cli.ts, bench/): new code imports chain-writer.ts and row-encoding.ts.
 * @deprecated remove once nothing imports it.
 */
export {
  type ChainWriter as TransfersStore,
  type Checkpoint,
  createChainWriter as createTransfersStore,
} from './chain-writer.ts'
export { outputsPartitionName, partitionName } from './row-encoding.ts'
