/**
 * `npm run tron:demo-node`: the scripted Tron chain of the tests on a local java-tron-shaped HTTP API,
 * for trying WDS's Tron indexing without a node (docs/chains/tron.md). A block every 3 s, as on mainnet.
 */
import { addressOf, ScriptedTronChain, type ScriptTx } from './tron-chain.ts'
import { startTronNode } from './tron-node.ts'

const alice = addressOf('alice')
const bob = addressOf('bob')
const router = addressOf('router')
const usdt = addressOf('usdt')
const TRX = 1_000_000n
const chain = new ScriptedTronChain(
  {
    accounts: new Map([
      [alice, { balance: 1_000n * TRX, frozenV2: 0n, assets: new Map([['1002000', 50n * TRX]]) }],
      [bob, { balance: 500n * TRX, frozenV2: 0n, assets: new Map() }],
      [router, { balance: 100n * TRX, frozenV2: 0n, assets: new Map([['1002000', 10n * TRX]]) }],
    ]),
    trc20: new Map([[usdt, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map([[alice, 1_000n * TRX]]) }]]),
  },
  Date.now() - 3_600_000,
)
chain.assets.set('1002000', { id: '1002000', name: 'BitTorrent', abbr: 'BTT', precision: 6 })
const script: ScriptTx[][] = [
  [{ kind: 'trx', from: alice, to: bob, amount: 10n * TRX }],
  [{ kind: 'trc10', from: alice, to: bob, token: '1002000', amount: 5n * TRX }],
  [{ kind: 'trc20', from: alice, contract: usdt, to: bob, amount: 250n * TRX, fee: 13_844_500n }],
  [{ kind: 'trc20', from: alice, contract: usdt, to: bob, amount: 1n, fee: 8_000_000n, failed: true }],
  [
    {
      kind: 'call',
      from: alice,
      contract: router,
      callValue: 20n * TRX,
      fee: 5_000_000n,
      internal: [
        { to: bob, amount: 7n * TRX },
        { to: alice, amount: 3n * TRX, token: '1002000' },
      ],
    },
  ],
  [{ kind: 'freeze', owner: alice, amount: 100n * TRX }],
  [{ kind: 'withdrawReward', owner: alice, amount: 12_345_678n }],
]
for (const txs of script) chain.addBlock(txs)
const node = await startTronNode(chain, Number(process.env.PORT ?? 18090))
console.log(`a scripted Tron node at ${node.url}; wallet ${alice} (bob ${bob}). Ctrl-C to stop.`)
setInterval(() => {
  chain.addBlock([{ kind: 'trx', from: bob, to: alice, amount: TRX }])
  node.head = chain.head
}, 3_000)
