import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync } from 'fastify'
import { sendStatic, staticFile } from './portal-web.ts'

/** The error catalogue the guide shows, kept in one place: docs/errors.md. */
export const ERRORS_MD = fileURLToPath(new URL('../../../../docs/errors.md', import.meta.url))

/** One worked example: a request a newcomer can paste (with their key in $WDS_API_KEY) and what it answers. */
export type GuideExample = {
  /** The OpenAPI path it exercises, e.g. `/v1/wallets/{address}/transfers`. */
  path: string
  title: string
  explain: string
  /** Path and query of the request, e.g. `/v1/fx/rate?from=EUR&to=USD&date=2024-03-28`. */
  request: string
  /** The answer, abridged. */
  answer: string
}

const WALLET = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'

export const GUIDE_EXAMPLES: GuideExample[] = [
  {
    path: '/v1/status/chains',
    title: 'Which chains are indexed, and how far',
    explain:
      'Every one of the 29 chains with its coverage and state: live, syncing, stalled (with lastError saying why), unconfigured (no source given to this deployment) or unsupported (this version does not implement the chain family yet). The public status page shows the same without a key.',
    request: '/v1/status/chains',
    answer:
      '{"updatedAt":"…","chains":[{"chain":"ethereum","chainId":1,"name":"Ethereum","status":"live","latestBlock":21000123,"indexedBlock":21000123,"lagBlocks":0,"lagSeconds":0,…},…]}',
  },
  {
    path: '/v1/wallets/{address}/transfers',
    title: 'A wallet’s history',
    explain:
      'Native, internal, ERC-20, ERC-721 and ERC-1155 transfers and the fees the wallet paid, newest first. Amounts are exact decimal strings. Leave out chain to search every configured chain. For the next page, send the answer’s cursor back with the same other parameters while hasMore is true. Every record says whether it is spam and why (docs/spam.md), and excludeSpam=true leaves those out. A poisoning attempt looks like this: right after the wallet paid 0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc, a look-alike of it — 0x3c447f0e2a9d51c6b38e40fa17d25c9be6a193bc, the same first and last 4 hex characters, so both read 0x3c44…93bc where a wallet shortens them — moved 0 USDT out of the wallet with transferFrom (anyone can) so that it shows in the history — {"from":"0xd8da…6045","to":"0x3c447f0e2a9d51c6b38e40fa17d25c9be6a193bc","value":"0","asset":"USDT","spam":{"flagged":true,"reasons":["address-poisoning","zero-value-transfer-from"],"source":"computed"}}: never copy an address from your history.',
    request: `/v1/wallets/${WALLET}/transfers?chain=ethereum&limit=2&fromDate=2025-01-01&toDate=2025-03-31`,
    answer:
      '{"address":"0xd8da…6045","chain":"ethereum","transfers":[{"txHash":"0x…","blockNumber":21500000,"timestamp":"2025-03-30T12:00:11.000Z","type":"erc20","from":"0x…","to":"0xd8da…6045","value":"250.000000","asset":"USDC","direction":"in",…}],"cursor":"eyJ2Ijox…","hasMore":true}',
  },
  {
    path: '/v1/wallets/{address}/transactions',
    title: 'A wallet’s transactions, categorised',
    explain:
      'The same records grouped by transaction, newest first: each with a category (send, receive, swap, nft-purchase, mint, airdrop, fee-only, contract-interaction …), the rule that named it with a one-line explanation, whether the wallet initiated it, its status, the fee, the movements and the net change per asset (received − sent − fee). limit counts transactions and a page never splits one. The SDKs type the category and keep one they do not know yet.',
    request: `/v1/wallets/${WALLET}/transactions?chain=ethereum&limit=2`,
    answer:
      '{"address":"0xd8da…6045","chain":"ethereum","transactions":[{"id":"BV0ZaGZQ-uSsIaSz","txHash":"0x…","blockNumber":21500000,"category":"swap","rule":{"id":"swap.fungible-for-fungible","explanation":"the wallet sent USDC and received ETH in one transaction"},"initiatedByWallet":true,"status":"success","fee":{"type":"fee","value":"0.000053566830005686","asset":"ETH",…},"movements":[{"type":"erc20","value":"250.000000","asset":"USDC","direction":"out",…},{"type":"internal","value":"0.075000000000000000","asset":"ETH","direction":"in",…}],"net":[{"asset":"USDC","value":"-250.000000",…},{"asset":"ETH","value":"0.074946433169994314",…}]}],"cursor":"eyJ2Ijox…","hasMore":true}',
  },
  {
    path: '/v1/wallets/{address}/export',
    title: 'A tax year as the CSV file your tax tool imports',
    explain:
      'The transactions above, streamed as the CSV file of Koinly, CoinTracking, CoinTracker, Crypto Tax Calculator, TaxBit, ZenLedger or TokenTax (format=…), or wds: our own, one row per record with every field. Each tool’s published columns and date layout, dates in UTC, exact amounts, fiat values in currency on the transaction’s day (empty when unpriced, never 0). A tax year fits in one request (fromDate and toDate at most 365 days apart); curl -OJ keeps the file name. An export counts one request per 1,000 rows (docs/exports.md). The portal’s Download CSV page (/portal/export) makes the same request with one of your keys.',
    request: `/v1/wallets/${WALLET}/export?chain=ethereum&format=koinly&fromDate=2024-01-01&toDate=2024-12-31&currency=EUR`,
    answer:
      'Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash\r\n2024-12-30 12:00:11 UTC,250,USDC,0.075,ETH,0.000053566830005686,ETH,241.12,EUR,,swap (swap.fungible-for-fungible),0x…\r\n…',
  },
  {
    path: '/v1/portfolio/export',
    title: 'Several wallets in one file',
    explain:
      'The same export for up to 50 addresses (address repeated), possibly on several chains: a payment between two of them is one internal transfer row, never a sale or income, and appears once.',
    request: `/v1/portfolio/export?format=wds&chain=ethereum&address=${WALLET}&address=0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC`,
    answer:
      'transactionId,recordId,chain,chainId,txHash,blockNumber,timestamp,wallet,category,rule,initiatedByWallet,status,recordType,direction,from,to,asset,…,internal\r\n…',
  },
  {
    path: '/v1/wallets/{address}/erc20-transfers',
    title: 'ERC-20 transfers only, optionally of one token',
    explain: 'The same records as /transfers, ERC-20 only; contractAddress narrows it to one token.',
    request: `/v1/wallets/${WALLET}/erc20-transfers?chain=ethereum&contractAddress=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&limit=5`,
    answer:
      '{"address":"0xd8da…6045","chain":"ethereum","transfers":[{"type":"erc20","asset":"USDC","value":"250.000000",…}],"cursor":null,"hasMore":false}',
  },
  {
    path: '/v1/wallets/{address}/nft-transfers',
    title: 'NFT transfers',
    explain: 'One record per ERC-721 Transfer and per element of an ERC-1155 batch, with tokenId and amount as decimal strings.',
    request: `/v1/wallets/${WALLET}/nft-transfers?chain=ethereum&limit=5`,
    answer:
      '{"address":"0xd8da…6045","chain":"ethereum","transfers":[{"tokenStandard":"erc721","tokenId":"1234","amount":"1","collectionName":"…","direction":"in",…}],"cursor":null,"hasMore":false}',
  },
  {
    path: '/v1/wallets/{address}/balances',
    title: 'Balances, now or at the end of a day, with their value',
    explain:
      'Native and ERC-20 balances at the indexed head, at the end of a block (atBlock) or of a UTC day (atDate: period-end balances for accounts). includePrices adds the value in USD and, with currency, in another currency.',
    request: `/v1/wallets/${WALLET}/balances?chain=ethereum&atDate=2024-12-31&includePrices=true&currency=EUR`,
    answer:
      '{"address":"0xd8da…6045","chain":"ethereum","asOf":[{"chain":"ethereum","blockNumber":21525000,"timestamp":"2024-12-31T23:59:59.000Z"}],"balances":[{"type":"native","asset":"ETH","balance":"1.234500000000000000","price_usd":3332.09,"value_usd":4113.47,"price_eur":3199.5,…}],"total_value_usd":4113.47,…}',
  },
  {
    path: '/v1/wallets/{address}/reconciliation',
    title: 'Reconciliation: the records against the node',
    explain:
      "Per asset at a block of an indexed chain: the balance the records add up to, the node's own answer, their difference, and why it is not zero where the chain moves value no record attributes. reconciled is true when every difference is zero.",
    request: `/v1/wallets/${WALLET}/reconciliation?chain=ethereum`,
    answer:
      '{"address":"0xd8da…6045","chain":"ethereum","asOf":{"blockNumber":21525000,…},"indexedFrom":0,"reconciled":true,"assets":[{"type":"native","asset":"ETH","records":"1.234500000000000000","node":"1.234500000000000000","difference":"0","explanation":null},…]}',
  },
  {
    path: '/v1/fx/currencies',
    title: 'The 36 fiat currencies',
    explain: 'The currencies the FX endpoints and the currency parameter accept.',
    request: '/v1/fx/currencies',
    answer: '{"currencies":[{"code":"AUD",…},{"code":"EUR",…},…]}',
  },
  {
    path: '/v1/fx/rate',
    title: 'An exchange rate on a day',
    explain:
      'Units of to for one unit of from, from the ECB reference rates. On a weekend or holiday the last rate before the date is used and carriedForward says so.',
    request: '/v1/fx/rate?from=EUR&to=USD&date=2024-03-29',
    answer:
      '{"from":"EUR","to":"USD","date":"2024-03-29","rate":1.0811,"rateDate":"2024-03-28","carriedForward":true,"source":"ecb"}',
  },
  {
    path: '/v1/fx/monthly-average',
    title: 'A monthly average rate',
    explain:
      'The arithmetic mean of the month’s daily rates (IAS 21 allows an average rate); complete is false while the month runs.',
    request: '/v1/fx/monthly-average?currency=EUR&year=2024&month=1&to=USD',
    answer:
      '{"currency":"EUR","to":"USD","year":2024,"month":1,"rate":1.09051363636,"observations":22,"complete":true,"method":"…","source":"ecb",…}',
  },
  {
    path: '/v1/prices',
    title: 'Which assets have prices, and from when',
    explain: 'Every symbol with each source’s first and last day.',
    request: '/v1/prices',
    answer:
      '{"assets":[{"symbol":"BTC","sources":[{"source":"coinmarketcap","quote":"USD","firstDate":"2013-04-28","lastDate":"2021-07-06"},…]},…]}',
  },
  {
    path: '/v1/prices/{symbol}',
    title: 'An asset’s daily close',
    explain:
      'The close of a UTC day from the most preferred source that has one, in any of the 36 currencies, with a quality score from 0 to 1.',
    request: '/v1/prices/BTC?date=2021-02-26&currency=EUR',
    answer:
      '{"version":"2.3","symbol":"BTC","date":"2021-02-26","currency":"EUR","price":38115.66,"source":"coinmarketcap","qualityScore":0.98}',
  },
]

type ErrorRow = { code: string; status: string; when: string; example: string }

/** The rows of the error table in docs/errors.md (`| code | status | when | example detail |`). */
export function parseErrorCatalogue(markdown: string): ErrorRow[] {
  const rows: ErrorRow[] = []
  for (const line of markdown.split('\n')) {
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim())
    const [code, status, when, example] = cells
    if (cells.length !== 4 || code === undefined || status === undefined || when === undefined || example === undefined) continue
    if (!/^`[a-z_]+`$/.test(code)) continue
    rows.push({ code: code.slice(1, -1), status, when, example })
  }
  return rows
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)

/** Escaped text with `code spans`. */
const inline = (text: string) =>
  escapeHtml(text)
    .split('`')
    .map((part, i) => (i % 2 === 1 ? `<code>${part}</code>` : part))
    .join('')

export function renderGuide(base: string, errors: ErrorRow[]): string {
  return `${renderTop()}${renderStart(base)}
<h2 id="endpoints">The endpoints</h2>
${renderExamples(base)}
${renderLimitsAndErrors(errors)}</main>
</body>
</html>
`
}

/** The page's head, its navigation and the table of contents. */
function renderTop(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Guide · WDS</title>
<link rel="icon" href="/portal/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/portal/assets/style.css">
<script type="module" src="/portal/assets/guide.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/docs/guide">WDS <span>guide</span></a>
  <nav aria-label="Service" class="service-nav">
    <a href="/portal">Developer portal</a>
    <a href="/status">Status</a>
    <a href="/docs/guide" aria-current="page">Guide</a>
    <a href="/docs">API reference</a>
  </nav>
</header>
<main id="main" tabindex="-1">
<h1>Using the WDS API</h1>
<p class="lead">Wallet data on 29 chains over HTTP: every example below can be pasted into a terminal.</p>
<nav aria-label="On this page"><ul class="toc">
  <li><a href="#start">Get a key and make a first request</a></li>
  ${GUIDE_EXAMPLES.map((e) => `<li><a href="#${escapeHtml(slug(e.path))}">${escapeHtml(e.path)}</a></li>`).join('\n  ')}
  <li><a href="#limits">Rate limits</a></li>
  <li><a href="#errors">Errors</a></li>
</ul></nav>
`
}

/** How to get a key and make a first request against `base`. */
function renderStart(base: string): string {
  return `
<h2 id="start">Get a key and make a first request</h2>
<ol>
  <li>Open the <a href="/portal/signup">developer portal</a>, sign up with your email, and enter the 6-digit code we mail you. Your first key is shown once: copy it.
    (An operator can also make one: <code>npx wds keys create --email you@example.com --tier free</code>.)</li>
  <li>Keep it in an environment variable, never in a URL (keys in a query string are refused: URLs end up in logs):
    <pre>export WDS_API_KEY=wds_free_…</pre></li>
  <li>Every data endpoint needs the <code>X-API-Key</code> header. Try:
    <pre data-example="/v1/status/chains">curl -H "X-API-Key: $WDS_API_KEY" "${escapeHtml(base)}/v1/status/chains"</pre></li>
</ol>
<p>Amounts are exact decimal strings (never floats); timestamps are ISO 8601 in UTC; addresses come back in their chain’s canonical form (EVM: lower-case).
The examples use a well-known Ethereum address; on your deployment a chain answers once it has a data source (see the <a href="/status">status page</a>).
The full reference, with every parameter, is at <a href="/docs">/docs</a>.</p>
`
}

/** Each worked example: what it is for, its curl command against `base`, its answer. */
function renderExamples(base: string): string {
  const curl = (example: GuideExample) => `curl -H "X-API-Key: $WDS_API_KEY" "${base}${example.request}"`
  const sections = GUIDE_EXAMPLES.map(
    (example) => `
<section class="endpoint" id="${escapeHtml(slug(example.path))}" data-path="${escapeHtml(example.path)}">
  <h3><code>GET ${escapeHtml(example.path)}</code>: ${escapeHtml(example.title)}</h3>
  <p>${escapeHtml(example.explain)}</p>
  <pre data-example="${escapeHtml(example.request)}">${escapeHtml(curl(example))}</pre>
  <p class="muted">Answers (abridged):</p>
  <pre>${escapeHtml(example.answer)}</pre>
</section>`,
  ).join('')
  return sections
}

/** The rate limits, and the error catalogue from docs/errors.md. */
function renderLimitsAndErrors(errors: ErrorRow[]): string {
  const errorRows = errors
    .map(
      (e) =>
        `<tr id="error-${e.code}"><td><code>${e.code}</code></td><td class="num">${escapeHtml(e.status)}</td><td>${inline(e.when)}</td><td>${inline(e.example)}</td></tr>`,
    )
    .join('\n')
  return `
<h2 id="limits">Rate limits</h2>
<p>Requests count per account (all its keys together) per UTC minute and UTC day: Free 10 a minute and 1,000 a day, Standard 100 and 50,000, Professional 1,000 and no daily quota.
Every answer carries <code>RateLimit-Policy</code> and <code>RateLimit</code> (what is left and when it resets) and <code>X-RateLimit-Limit</code>/<code>-Remaining</code>/<code>-Reset</code>.
Over a limit the answer is 429 with <code>Retry-After</code> in seconds: wait that long and retry; refused requests do not count.</p>

<h2 id="errors">Errors</h2>
<p>Every error is <code>application/problem+json</code> with a stable <code>code</code> to branch on (the <code>detail</code> wording may improve), <code>param</code> naming the parameter that was wrong, and a <code>requestId</code> to quote when reporting a problem:</p>
<pre>{"type":"urn:wds:problem:invalid_parameter","title":"Invalid parameter","status":400,
 "detail":"unknown querystring parameter \\"chian\\"","code":"invalid_parameter","param":"chian","requestId":"5f0c7a2e-…"}</pre>
<div class="table-wrap" tabindex="0" role="region" aria-label="Error codes">
<table>
<caption>Error codes</caption>
<thead><tr><th scope="col">code</th><th scope="col" class="num">status</th><th scope="col">when</th><th scope="col">example detail</th></tr></thead>
<tbody>
${errorRows}
</tbody>
</table>
</div>
`
}

const slug = (path: string) =>
  path
    .replace(/^\/v1\//, '')
    .replace(/[{}]/g, '')
    .replace(/[^a-z0-9]+/gi, '-')

/** `GET /docs/guide`: the worked examples and the error catalogue, in the service's own origin. */
export const guideRoutes: FastifyPluginAsync = async (app) => {
  const errors = parseErrorCatalogue(await readFile(ERRORS_MD, 'utf8'))
  const pages = new Map<string, ReturnType<typeof staticFile>>()
  app.get('/docs/guide', { schema: { hide: true } }, (request, reply) => {
    // The examples name the address the reader used to reach this page.
    const base = `${request.protocol}://${request.host}`
    let page = pages.get(base)
    if (page === undefined) {
      page = staticFile(renderGuide(base, errors), 'text/html; charset=utf-8')
      if (pages.size < 8) pages.set(base, page)
    }
    return sendStatic(request, reply, page)
  })
}
