/** The coordinates scripts/sdk-harness.ts gives the suite, and the fault proxy's controls. */
import { readFileSync } from 'node:fs'

function required(name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is not set: run the suite through scripts/test-sdks.sh`)
  return value
}

export const harness = {
  baseUrl: required('WDS_BASE_URL'),
  apiKey: required('WDS_API_KEY'),
  wallet: required('WDS_TEST_WALLET'),
  token: required('WDS_TEST_TOKEN'),
  nft: required('WDS_TEST_NFT'),
  minRecords: Number(required('WDS_TEST_MIN_RECORDS')),
  quotaKey: required('WDS_TEST_QUOTA_KEY'),
  proxyUrl: required('WDS_TEST_PROXY_URL'),
  proxyControlUrl: required('WDS_TEST_PROXY_CONTROL_URL'),
  serviceLog: required('WDS_TEST_SERVICE_LOG'),
}

export type Fault =
  | { kind: 'drop' }
  | { kind: 'status'; status: number; code?: string; headers?: Record<string, string> }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'pass' }

export type SeenRequest = { method: string; url: string; hasKeyHeader: boolean; atMs: number }

/** Queues faults for the next requests through the proxy (and clears its log). */
export async function queueFaults(faults: Fault[]): Promise<void> {
  const answer = await fetch(`${harness.proxyControlUrl}/faults`, { method: 'POST', body: JSON.stringify(faults) })
  if (answer.status !== 204) throw new Error(`the fault proxy refused the faults: ${answer.status}`)
}

export async function seenByProxy(): Promise<SeenRequest[]> {
  return (await (await fetch(`${harness.proxyControlUrl}/log`)).json()) as SeenRequest[]
}

/**
 * The one-time code the service "mailed" to `email` (no SMTP_URL: it is in the log). The log line
 * may reach the file a little after the answer, so the log is read until it is there (5 s at most).
 */
export async function mailedCode(email: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const code = findMailedCode(email)
    if (code !== undefined) return code
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no code was mailed to ${email}`)
}

function findMailedCode(email: string): string | undefined {
  for (const line of readFileSync(harness.serviceLog, 'utf8').split('\n').reverse()) {
    if (!line.includes(email)) continue
    const entry = JSON.parse(line) as { mail_to?: string; text?: string }
    const code = entry.mail_to === email ? /\b(\d{6})\b/.exec(entry.text ?? '')?.[1] : undefined
    if (code !== undefined) return code
  }
  return undefined
}
