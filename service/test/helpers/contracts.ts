import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Abi, Hex } from 'viem'

const SOURCE = fileURLToPath(new URL('../fixtures/contracts/Fixtures.sol', import.meta.url))
const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/wds-contracts/', import.meta.url))

export type Artifact = { abi: Abi; bytecode: Hex }
export type Artifacts = Record<
  'TestToken' | 'Bytes32Token' | 'RevertingToken' | 'TestNft' | 'TestMultiToken' | 'Forwarder' | 'Vault',
  Artifact
>

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

/**
 * Compiles test/fixtures/contracts/Fixtures.sol with solc from npm (offline), cached by the
 * source's hash so that only the first run pays for the compiler.
 */
export async function compileFixtures(): Promise<Artifacts> {
  const source = await readFile(SOURCE, 'utf8')
  const cacheFile = join(CACHE_DIR, `${createHash('sha256').update(source).digest('hex').slice(0, 16)}.json`)
  try {
    return JSON.parse(await readFile(cacheFile, 'utf8')) as Artifacts
  } catch {}
  const { default: solc } = (await import('solc')) as { default: { compile(input: string): string } }
  const input = {
    language: 'Solidity',
    sources: { 'Fixtures.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const compiled = output.contracts['Fixtures.sol'] ?? {}
  const artifacts = Object.fromEntries(
    Object.entries(compiled).map(([name, c]) => [name, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex }]),
  ) as Artifacts
  await mkdir(dirname(cacheFile), { recursive: true })
  await writeFile(cacheFile, JSON.stringify(artifacts))
  return artifacts
}
