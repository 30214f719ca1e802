import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hash,
  http,
  type PublicClient,
  parseEther,
  type WalletClient,
} from 'viem'
import type { Anvil } from './anvil.ts'
import { type Artifacts, compileFixtures } from './contracts.ts'

export type ScriptedChain = {
  accounts: { alice: Address; bob: Address; carol: Address; dave: Address }
  contracts: {
    token: Address
    nft: Address
    multi: Address
    forwarder: Address
    vault: Address
    bytes32Token: Address
    revertingToken: Address
  }
  /** The transaction of each scripted step, by name. */
  tx: Record<string, Hash>
  /** The head block once the script has run. */
  head: number
}

/** Clients for a test to drive an anvil node with its unlocked accounts. */
export function clientsFor(anvil: Anvil): { public: PublicClient; wallet: WalletClient } {
  const transport = http(anvil.url)
  // anvil answers eth_sendTransaction before the receipt exists (5% of transactions idle, 17% with both
  // cores busy); viem's waitForTransactionReceipt then waits for the next block number, which it polls
  // every 4 s from a 4 s cache: 4 s per miss, a set-up of 60 transactions past its hook timeout on a
  // loaded machine. Polled every 20 ms, uncached, a miss costs 20 ms.
  return {
    public: createPublicClient({ transport, pollingInterval: 20, cacheTime: 0 }),
    wallet: createWalletClient({ transport }),
  }
}

/**
 * Plays a wallet history with every kind of row we index on a fresh anvil node (automine: one
 * transaction per block): native transfers (a self-transfer and a zero-value one among them),
 * fees, a reverted transaction, internal transfers (forwarded, split, inside a reverted frame, a
 * contract creation and a self-destruct carrying value), ERC-20 mints/transfers/burns, ERC-721
 * mints/transfers/burns, ERC-1155 single and batch transfers, and tokens with odd metadata.
 */
export async function playScriptedHistory(anvil: Anvil, artifacts?: Artifacts): Promise<ScriptedChain> {
  const a = artifacts ?? (await compileFixtures())
  const { public: client, wallet } = clientsFor(anvil)
  const [alice, bob, carol, dave] = (await wallet.getAddresses()) as [Address, Address, Address, Address]
  const tx: Record<string, Hash> = {}

  const mined = async (name: string, hash: Hash) => {
    const receipt = await client.waitForTransactionReceipt({ hash })
    tx[name] = hash
    return receipt
  }
  const deploy = async (name: keyof Artifacts, args: unknown[] = []) => {
    const { abi, bytecode } = a[name]
    const hash = await wallet.deployContract({ abi, bytecode, args, account: alice, chain: null })
    const receipt = await mined(`deploy${name}`, hash)
    if (!receipt.contractAddress) throw new Error(`${name} was not deployed`)
    return receipt.contractAddress
  }
  const call = async (
    name: string,
    from: Address,
    address: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
    extra: { value?: bigint; gas?: bigint } = {},
  ) => mined(name, await wallet.writeContract({ address, abi, functionName, args, account: from, chain: null, ...extra }))
  const send = async (name: string, from: Address, to: Address, value: bigint) =>
    mined(name, await wallet.sendTransaction({ account: from, to, value, chain: null }))

  const token = await deploy('TestToken', ['Test Dollar', 'TUSD', 6])
  const nft = await deploy('TestNft')
  const multi = await deploy('TestMultiToken')
  const forwarder = await deploy('Forwarder')
  const bytes32Token = await deploy('Bytes32Token')
  const revertingToken = await deploy('RevertingToken')

  await send('native', alice, bob, parseEther('1'))
  await send('selfTransfer', alice, alice, parseEther('0.5'))
  await send('zeroValue', alice, bob, 0n)

  const T = a.TestToken.abi
  await call('erc20Mint', alice, token, T, 'mint', [alice, 1_000_000_000n])
  await call('erc20Transfer', alice, token, T, 'transfer', [bob, 250_000_000n])
  await call('erc20SelfTransfer', alice, token, T, 'transfer', [alice, 1n])
  await call('erc20Burn', bob, token, T, 'burn', [50_000_000n])
  await call('erc20Many', alice, token, T, 'transferMany', [[bob, carol, carol], 10n])

  const N = a.TestNft.abi
  await call('nftMint1', alice, nft, N, 'mint', [alice, 1n])
  await call('nftMint2', alice, nft, N, 'mint', [alice, 2n])
  await call('nftTransfer', alice, nft, N, 'transferFrom', [alice, bob, 1n])
  await call('nftBurn', alice, nft, N, 'burn', [2n])

  const M = a.TestMultiToken.abi
  await call('multiMint', alice, multi, M, 'mint', [alice, 7n, 100n])
  await call('multiMintBatch', alice, multi, M, 'mintBatch', [alice, [1n, 2n, 3n], [10n, 20n, 30n]])
  await call('multiBatchTransfer', alice, multi, M, 'safeBatchTransferFrom', [alice, bob, [1n, 3n], [5n, 6n], '0x'])
  await call('multiTransfer', alice, multi, M, 'safeTransferFrom', [alice, carol, 7n, 40n, '0x'])

  const F = a.Forwarder.abi
  await call('forward', alice, forwarder, F, 'forward', [carol], { value: parseEther('0.1') })
  await call('split', alice, forwarder, F, 'split', [bob, carol], { value: parseEther('0.3') })
  await call('revertedFrame', alice, forwarder, F, 'forwardInRevertedFrame', [bob], {
    value: parseEther('0.2'),
    gas: 300_000n,
  })
  const failed = await call('reverted', bob, forwarder, F, 'forwardThenFail', [carol], {
    value: parseEther('0.4'),
    gas: 200_000n,
  })
  if (failed.status !== 'reverted') throw new Error('the reverted step did not revert')
  const { result: vault } = await client.simulateContract({
    address: forwarder,
    abi: F,
    functionName: 'create',
    account: alice,
    value: parseEther('0.05'),
  })
  await call('create', alice, forwarder, F, 'create', [], { value: parseEther('0.05') })
  await call('selfDestruct', carol, vault as Address, a.Vault.abi, 'destroy', [dave])

  await call('bytes32Mint', alice, bytes32Token, a.Bytes32Token.abi, 'mint', [alice, 5n])
  await call('revertingMint', alice, revertingToken, a.RevertingToken.abi, 'mint', [alice, 7n])

  return {
    accounts: { alice, bob, carol, dave },
    contracts: { token, nft, multi, forwarder, vault: vault as Address, bytes32Token, revertingToken },
    tx,
    head: Number(await anvil.rpc<string>('eth_blockNumber')),
  }
}
