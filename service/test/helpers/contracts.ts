import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Abi, Hex } from 'viem'

const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/contracts/', import.meta.url))
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
 * Compiles test/fixtures/contracts/`file` with solc from npm (offline), cached by the file's name and
 * its source's hash so that only the first run pays for the compiler: each contract's ABI and bytecode.
 */
export async function compileSolidity<Name extends string>(file: string): Promise<Record<Name, Artifact>> {
  const source = await readFile(join(FIXTURES_DIR, file), 'utf8')
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16)
  const cacheFile = join(CACHE_DIR, `${file}-${hash}.json`)
  try {
    return JSON.parse(await readFile(cacheFile, 'utf8')) as Record<Name, Artifact>
  } catch {}
  const { default: solc } = (await import('solc')) as { default: { compile(input: string): string } }
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const compiled = output.contracts[file] ?? {}
  const artifacts = Object.fromEntries(
    Object.entries(compiled).map(([name, c]) => [name, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex }]),
  ) as Record<Name, Artifact>
  await mkdir(dirname(cacheFile), { recursive: true })
  await writeFile(cacheFile, JSON.stringify(artifacts))
  return artifacts
}

/** The contracts of test/fixtures/contracts/Fixtures.sol. */
export const compileFixtures = (): Promise<Artifacts> => compileSolidity('Fixtures.sol')
