import { call } from './api.js'
import { copyButton, formatTime, h } from './dom.js'
import { loadTiers } from './keys.js'

export async function accountView() {
  const [account, { keys }, tiers] = await Promise.all([
    call('GET', '/v1/developer/account'),
    call('GET', '/v1/developer/keys'),
    loadTiers(),
  ])
  const hint = keys.find((key) => key.revokedAt === null)?.hint
  const keyText = hint === undefined ? '<your key>' : `<your key ${hint}>`
  const base = location.origin
  const snippets = [
    [
      'curl',
      `curl -H "X-API-Key: ${keyText}" \\\n  "${base}/v1/wallets/0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045/balances?chain=ethereum"`,
    ],
    [
      'JavaScript (fetch, Node 18+ or a browser)',
      `const answer = await fetch(\n  '${base}/v1/wallets/0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045/transfers?chain=ethereum&limit=10',\n  { headers: { 'X-API-Key': process.env.WDS_API_KEY } },\n)\nif (!answer.ok) throw new Error((await answer.json()).detail)\nconst { transfers, cursor, hasMore } = await answer.json() // pass cursor back for the next page`,
    ],
    [
      'Python (standard library)',
      `import json, os, urllib.request\n\nrequest = urllib.request.Request(\n    "${base}/v1/fx/rate?from=EUR&to=USD&date=2024-03-28",\n    headers={"X-API-Key": os.environ["WDS_API_KEY"]},\n)\nprint(json.load(urllib.request.urlopen(request)))`,
    ],
  ]
  return h(
    'div',
    {},
    h('h1', {}, 'Account'),
    h(
      'dl',
      { class: 'facts card' },
      h('dt', {}, 'Email'),
      h('dd', { 'data-testid': 'account-email' }, account.email),
      h('dt', {}, 'Plan'),
      h('dd', {}, `${tiers.get(account.tier)?.name ?? account.tier} (${account.tier})`),
      h('dt', {}, 'Created'),
      h('dd', {}, formatTime(account.createdAt)),
      h('dt', {}, 'Verified'),
      h('dd', {}, formatTime(account.verifiedAt)),
    ),
    h('h2', {}, 'Getting started'),
    h(
      'p',
      {},
      hint === undefined
        ? 'You have no active key: create one on the Keys page, then try these.'
        : `Put the key ${hint} in place of the placeholder (keep it in an environment variable, e.g. WDS_API_KEY). Every data request needs the X-API-Key header.`,
    ),
    snippets.map(([title, code]) =>
      h('section', {}, h('h3', {}, title), h('pre', {}, code), copyButton(code, `Copy the ${title.split(' ')[0]} example`)),
    ),
    h(
      'p',
      {},
      'Every endpoint has a worked example in the ',
      h('a', { href: '/docs/guide' }, 'guide'),
      ', and the full reference is at ',
      h('a', { href: '/docs' }, '/docs'),
      '.',
    ),
  )
}
