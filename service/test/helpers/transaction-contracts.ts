import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Abi, Hex } from 'viem'

const SOURCE = fileURLToPath(new URL('../fixtures/contracts/Transactions.sol', import.meta.url))
const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/wds-contracts/', import.meta.url))

export type TransactionArtifacts = Record<
  'PoolToken' | 'MarketNft' | 'TinyPool' | 'NftMarket' | 'Airdropper',
  { abi: Abi; bytecode: Hex }
>

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

/** Compiles test/fixtures/contracts/Transactions.sol with solc from npm (offline), cached by the source's hash. */
export async function compileTransactionContracts(): Promise<TransactionArtifacts> {
  const source = await readFile(SOURCE, 'utf8')
  const cacheFile = join(CACHE_DIR, `tx-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.json`)
  try {
    return JSON.parse(await readFile(cacheFile, 'utf8')) as TransactionArtifacts
  } catch {}
  const { default: solc } = (await import('solc')) as { default: { compile(input: string): string } }
  const input = {
    language: 'Solidity',
    sources: { 'Transactions.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const artifacts = Object.fromEntries(
    Object.entries(output.contracts['Transactions.sol'] ?? {}).map(([name, c]) => [
      name,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex },
    ]),
  ) as TransactionArtifacts
  await mkdir(dirname(cacheFile), { recursive: true })
  await writeFile(cacheFile, JSON.stringify(artifacts))
  return artifacts
}
