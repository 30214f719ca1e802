/**
 * What a request needs from outside the store, behind one interface: the API never calls a chain
 * itself. `main/` wires the implementation (ingestion's, which asks the chain's source with a
 * timeout and keeps what it learns in the store). Failures are `WdsError`s: `chain_unavailable`
 * when the chain has no source, `upstream_error` when the source does not answer.
 */
export type OnDemand = {
  /**
   * What an address held at `openingBlock`, the block just before a chain's indexed range, of the
   * coin (key `NATIVE_ASSET`) and of each token contract asked: its genesis allocation, or
   * everything before the start block, which no indexed row explains.
   */
  openingBalances(
    chain: string,
    address: string,
    contracts: readonly string[],
    openingBlock: number,
  ): Promise<Map<string, bigint>>
}
