import { checkAddress } from '@polkadot/util-crypto'

/** An SS58 address of the network with this prefix (Polkadot 0), checksum verified. */
export function canonicalSs58(text: string, prefix: number): string | undefined {
  try {
    return checkAddress(text, prefix)[0] ? text : undefined
  } catch {
    return undefined
  }
}
