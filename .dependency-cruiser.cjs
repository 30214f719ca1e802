// The layers of service/src (README, "How the code is laid out"); dependencies point one way:
//   lib, domain, config  ←  chains, store  ←  ingestion, market, access  ←  api, portal  ←  main
// A rule per layer lists the layers it must not import. `npm run check` runs this.
const layer = (name) => `^service/src/${name}/`
const layers = (...names) => names.map(layer)

const forbid = (from, to, comment) => ({
  name: `${from}-imports-${to.join('-')}`,
  comment,
  severity: 'error',
  from: { path: layer(from) },
  to: { path: layers(...to) },
})

module.exports = {
  forbidden: [
    forbid(
      'lib',
      ['domain', 'config', 'chains', 'store', 'ingestion', 'market', 'access', 'api', 'portal', 'main'],
      'lib is domain-free',
    ),
    forbid(
      'domain',
      ['config', 'chains', 'store', 'ingestion', 'market', 'access', 'api', 'portal', 'main'],
      'domain is the shared vocabulary: it imports only lib',
    ),
    forbid(
      'config',
      ['chains', 'store', 'ingestion', 'market', 'access', 'api', 'portal', 'main'],
      'config is read by every layer',
    ),
    forbid(
      'chains',
      ['store', 'ingestion', 'market', 'access', 'api', 'portal', 'main'],
      'chains talk to nodes and know nothing of the store',
    ),
    forbid('store', ['chains', 'ingestion', 'market', 'access', 'api', 'portal', 'main'], 'the store knows nothing of chains'),
    forbid('ingestion', ['market', 'access', 'api', 'portal', 'main'], 'ingestion joins chains and store only'),
    forbid('market', ['chains', 'ingestion', 'access', 'api', 'portal', 'main'], 'market data comes from its providers'),
    forbid('access', ['chains', 'ingestion', 'market', 'api', 'portal', 'main'], 'access control reads the store'),
    forbid('portal', ['chains', 'ingestion', 'api', 'main'], 'the portal never calls a chain'),
    forbid('api', ['chains', 'ingestion', 'main'], 'the API reaches sources only through domain/on-demand.ts'),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'modules import each other in one direction',
      from: { path: '^service/src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.test\\.ts$' },
  },
}
