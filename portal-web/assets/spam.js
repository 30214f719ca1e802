import { call } from './api.js'
import { formatTime, h, message, table } from './dom.js'
import { field, form } from './forms.js'

/** The account's spam overrides (docs/spam.md): listed, added, removed. */
export async function spamView() {
  const { overrides } = await call('GET', '/v1/developer/spam-overrides')
  const view = h('div', {})
  const refresh = async (notice) => {
    const refreshed = await spamView()
    view.replaceWith(refreshed)
    if (notice !== undefined) refreshed.querySelector('[data-notice]').replaceChildren(message('ok', notice))
  }

  const addForm = form({
    label: 'Mark a token',
    className: 'card',
    submit: 'Save',
    fields: h(
      'div',
      { class: 'row' },
      field({ label: 'Chain', name: 'chain', value: 'ethereum', required: true }),
      field({ label: 'Token contract', name: 'contractAddress', required: true, placeholder: '0x…' }),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'spam-verdict' }, 'Mark as'),
        h(
          'select',
          { id: 'spam-verdict', name: 'spam' },
          h('option', { value: 'true' }, 'spam'),
          h('option', { value: 'false' }, 'not spam'),
        ),
      ),
    ),
    async onSubmit({ chain, contractAddress, spam }) {
      await call('PUT', '/v1/developer/spam-overrides', {
        chain: chain.trim(),
        contractAddress: contractAddress.trim(),
        spam: spam === 'true',
      })
      await refresh(
        `Saved: ${contractAddress.trim()} on ${chain.trim()} is now ${spam === 'true' ? 'spam' : 'not spam'} for your keys.`,
      )
    },
  })

  const rows = overrides.map((o) => [
    o.chain,
    h('code', {}, o.contractAddress),
    o.spam ? 'spam' : 'not spam',
    formatTime(o.updatedAt),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'aria-label': `Remove the override of ${o.contractAddress} on ${o.chain}`,
        onclick: async () => {
          const query = new URLSearchParams({ chain: o.chain, contractAddress: o.contractAddress })
          await call('DELETE', `/v1/developer/spam-overrides?${query}`)
          await refresh(`Removed: ${o.contractAddress} on ${o.chain} is flagged as computed again.`)
        },
      },
      'Remove',
    ),
  ])
  view.append(
    h('h1', {}, 'Spam overrides'),
    h(
      'p',
      {},
      'WDS flags spam tokens with the reasons that fired. Mark a token spam or not spam here and your keys get your verdict, with ',
      h('code', {}, 'source: "account"'),
      '. See ',
      h('a', { href: '/docs/guide' }, 'the guide'),
      ' for the reasons.',
    ),
    h('div', { 'data-notice': '' }),
    addForm,
    overrides.length === 0
      ? h('p', { class: 'muted', 'data-testid': 'no-overrides' }, 'No overrides: every token is flagged as computed.')
      : table({ caption: 'Your spam overrides', head: ['Chain', 'Contract', 'Marked', 'Updated', ''], rows }),
  )
  return view
}
