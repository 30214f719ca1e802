import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { Caller } from '../../../access/auth.ts'
import type { Charge } from '../../../access/rate-limits.ts'
import { CHAINS, type ChainInfo } from '../../../config/chains.ts'
import { EXPORT_FORMAT_NAMES, type ExportFormatName } from '../../../domain/exports/formats.ts'
import { WdsError } from '../../../lib/errors.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { getCurrencyParam } from '../../wallets/currencies.ts'
import type { ExportRequest, ExportWallet, ListTransactions, WalletExport } from '../../wallets/wallet-export.ts'
import {
  type ChainAvailability,
  chainsForAddress,
  checkBlockRange,
  explainNoChains,
  findHdWallet,
  getChainParam,
  normalizeAddress,
  parseDateRange,
  requireConfigured,
} from '../../wallets/wallet-query.ts'
import type { WalletsIn } from '../../wallets/wallet-services.ts'

export type ExportRoutesOptions = {
  walletExport: WalletExport
  /** The wallet services over a request's read scope: each page of an export is read in one. */
  wallets: WalletsIn
  availability: ChainAvailability
  /** Counts one more request of the caller (access-control); unset: exports are one request whatever their size. */
  chargeRequest?: (caller: Caller) => Promise<Charge>
  /** Waits (a refused minute's rest); injectable for tests. */
  sleep?: (ms: number) => Promise<void>
}

/** Rows of an export that count as one request of the rate limits (the request itself counts the first N). */
export const EXPORT_ROWS_PER_REQUEST = 1000

/** The most addresses one portfolio export reads. */
export const MAX_PORTFOLIO_ADDRESSES = 50

const DateParam = (what: string) =>
  Type.String({ description: `${what}: an ISO 8601 date (UTC; a toDate date includes its whole day) or date-time` })

const exportFields = {
  format: Type.Union(
    EXPORT_FORMAT_NAMES.map((name) => Type.Literal(name)),
    { description: 'The file format: a tax tool’s import format, or wds (every field, one row per record)' },
  ),
  chain: Type.Optional(Type.String({ description: 'Chain slug; omitted: every configured chain whose address format matches' })),
  fromDate: Type.Optional(DateParam('Start')),
  toDate: Type.Optional(DateParam('End, at most 365 days after fromDate (a tax year, leap years included)')),
  currency: Type.Optional(Type.String({ description: 'The fiat currency of the value columns (ISO 4217), default USD' })),
  includeSpam: Type.Boolean({ default: false, description: 'Include transactions flagged as spam (issue 34)' }),
}

const WalletExportQuery = Type.Object(
  {
    ...exportFields,
    fromBlock: Type.Optional(Type.Integer({ minimum: 0 })),
    toBlock: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

const PortfolioExportQuery = Type.Object(
  {
    address: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1, maxItems: MAX_PORTFOLIO_ADDRESSES })], {
      description: `The portfolio's addresses, the parameter repeated (at most ${MAX_PORTFOLIO_ADDRESSES})`,
    }),
    ...exportFields,
  },
  { additionalProperties: false },
)

const CSV_RESPONSE = {
  200: {
    description: 'The CSV file (RFC 4180, CRLF line ends, UTF-8), streamed',
    content: { 'text/csv': { schema: Type.String() } },
  },
  ...PROBLEM_RESPONSES,
}

/** A file name of safe characters: the wallet (or portfolio), the chain and the period. */
function fileName(parts: readonly (string | undefined)[]): string {
  return `${parts
    .filter((part) => part !== undefined && part !== '')
    .join('_')
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 180)}.csv`
}

/** Export routes: each validates, opens the export (its first page read) and streams the rest. */
export const exportRoutes: FastifyPluginAsyncTypebox<ExportRoutesOptions> = async (
  app,
  { walletExport, wallets, availability, chargeRequest, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
) => {
  /**
   * An export counts one request per EXPORT_ROWS_PER_REQUEST rows: the request itself the first N,
   * one more for each N after, counted as the pages are written. A full minute makes the export wait
   * for the next (the file comes at the tier's pace); a full day ends it (the stream is cut, the
   * response never completes; the first page's refusal is a 429 problem).
   */
  function chargeRowsOf(request: FastifyRequest) {
    const caller = request.caller
    let counted = 1
    return async (rows: number) => {
      while (caller !== undefined && chargeRequest !== undefined && rows > counted * EXPORT_ROWS_PER_REQUEST) {
        const charge = await chargeRequest(caller)
        if (charge.allowed) counted += 1
        else if (charge.refusedBy === 'minute') await sleep(charge.retryInSeconds * 1000)
        else {
          throw new WdsError(
            'quota_exceeded',
            `this export has used the account's requests of today (UTC): one request per ${EXPORT_ROWS_PER_REQUEST} rows; it resets in ${charge.retryInSeconds} s`,
            { headers: { 'retry-after': String(charge.retryInSeconds) } },
          )
        }
      }
    }
  }

  /** One address as an export wallet: the named chain, else every served chain of its format. */
  function walletOf(
    raw: string,
    named: ChainInfo | undefined,
    dates: ReturnType<typeof parseDateRange>,
    blocks = {},
  ): ExportWallet {
    if (findHdWallet(raw, named, availability) !== undefined) {
      throw new WdsError('invalid_address', 'exports do not read extended keys or descriptors yet: export each address', {
        param: 'address',
      })
    }
    const address = normalizeAddress(raw, named === undefined ? CHAINS : [named])
    if (named !== undefined) requireConfigured(named, availability)
    return {
      address,
      chains: named === undefined ? chainsForAddress(raw, availability) : [named],
      named: named !== undefined,
      unservedChains: named === undefined ? explainNoChains(raw, availability) : [],
      ...blocks,
      ...dates,
    }
  }

  async function send(reply: FastifyReply, request: ExportRequest, name: string) {
    const { context } = reply.request
    const listTransactions: ListTransactions = (page) =>
      context.read((scope) => wallets(context, scope).transactions.listTransactions(page))
    const { stream } = await walletExport.open(request, listTransactions, chargeRowsOf(reply.request))
    reply.header('content-type', 'text/csv; charset=utf-8')
    reply.header('content-disposition', `attachment; filename="${name}"`)
    return reply.send(stream)
  }

  app.get(
    '/wallets/:address/export',
    {
      schema: {
        summary: "A wallet's history as a tax tool's CSV file",
        description:
          'The transactions of /transactions, streamed as the CSV file a tax tool imports (docs/exports.md: each format’s columns, date format and label table): amounts exact, dates in UTC, fiat values in `currency`, empty when unpriced.',
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        params: Type.Object({ address: Type.String() }),
        querystring: WalletExportQuery,
        response: CSV_RESPONSE,
      },
    },
    async (request, reply) => {
      const q = request.query
      const named = q.chain === undefined ? undefined : getChainParam(q.chain)
      checkBlockRange(q.fromBlock, q.toBlock)
      const dates = parseDateRange(q.fromDate, q.toDate)
      const currency = getCurrencyParam(q.currency)
      const wallet = walletOf(request.params.address, named, dates, { fromBlock: q.fromBlock, toBlock: q.toBlock })
      const name = fileName(['wds', q.format, wallet.address, named?.slug ?? 'all-chains', q.fromDate, q.toDate])
      return send(reply, { wallets: [wallet], format: q.format as ExportFormatName, currency, includeSpam: q.includeSpam }, name)
    },
  )

  app.get(
    '/portfolio/export',
    {
      schema: {
        summary: "A portfolio's history as a tax tool's CSV file",
        description: `As /wallets/{address}/export for several addresses (\`address\` repeated, at most ${MAX_PORTFOLIO_ADDRESSES}) in one file: a movement between two of them is one internal transfer row, written once.`,
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        querystring: PortfolioExportQuery,
        response: CSV_RESPONSE,
      },
    },
    async (request, reply) => {
      const q = request.query
      const named = q.chain === undefined ? undefined : getChainParam(q.chain)
      const dates = parseDateRange(q.fromDate, q.toDate)
      const currency = getCurrencyParam(q.currency)
      const raws = [...new Set(Array.isArray(q.address) ? q.address : [q.address])]
      const wallets = raws.map((raw) => walletOf(raw, named, dates))
      const name = fileName([
        'wds',
        q.format,
        `portfolio-of-${wallets.length}`,
        named?.slug ?? 'all-chains',
        q.fromDate,
        q.toDate,
      ])
      return send(reply, { wallets, format: q.format as ExportFormatName, currency, includeSpam: q.includeSpam }, name)
    },
  )
}
