import { createRequire } from 'node:module'

type UtilCrypto = typeof import('@polkadot/util-crypto')
let utilCrypto: UtilCrypto | undefined

/**
 * @polkadot/util-crypto (its CommonJS build, the only copy this process loads) takes a third of a
 * second to load: it is loaded by the first SS58 address checked, not by every start.
 */
function polkadot(): UtilCrypto {
  utilCrypto ??= createRequire(import.meta.url)('@polkadot/util-crypto') as UtilCrypto
  return utilCrypto
}

/** An SS58 address of the network with this prefix (Polkadot 0), checksum verified. */
export function canonicalSs58(text: string, prefix: number): string | undefined {
  try {
    return polkadot().checkAddress(text, prefix)[0] ? text : undefined
  } catch {
    return undefined
  }
}
