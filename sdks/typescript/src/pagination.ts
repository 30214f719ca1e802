import type { WithResponse } from './core.ts'

/** A page of a list endpoint: the envelope as the API sends it (`cursor`, `hasMore`, the records). */
export type Page<Item> = { transfers: Item[]; cursor: string | null; hasMore: boolean }

export type IterateOptions = {
  /** Stop after this many records (all of them when omitted). */
  maxItems?: number
}

/**
 * The answer of a list call: await it for the first page, or iterate for every record across pages
 * (following `cursor` until `hasMore` is false):
 *
 *   for await (const transfer of client.wallets.transfers(address).iterate()) console.log(transfer.value)
 */
export class PagePromise<Item, P extends Page<Item>> implements PromiseLike<WithResponse<P>> {
  #first: Promise<WithResponse<P>> | undefined

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<WithResponse<P>>,
    private readonly startCursor: string | undefined,
  ) {}

  // biome-ignore lint/suspicious/noThenProperty: thenable on purpose: `await` gives the first page
  then<A = WithResponse<P>, B = never>(
    onFulfilled?: ((page: WithResponse<P>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onFulfilled, onRejected)
  }

  #firstPage(): Promise<WithResponse<P>> {
    this.#first ??= this.fetchPage(this.startCursor)
    return this.#first
  }

  /** Every page, starting with the first. */
  async *pages(): AsyncGenerator<WithResponse<P>> {
    let page = await this.#firstPage()
    yield page
    while (page.hasMore && page.cursor !== null) {
      page = await this.fetchPage(page.cursor)
      yield page
    }
  }

  /** Every record, newest first, each once. */
  async *iterate({ maxItems = Number.POSITIVE_INFINITY }: IterateOptions = {}): AsyncGenerator<Item> {
    if (maxItems <= 0) return
    let count = 0
    for await (const page of this.pages()) {
      for (const item of page.transfers) {
        yield item
        if (++count >= maxItems) return
      }
    }
  }

  [Symbol.asyncIterator](): AsyncGenerator<Item> {
    return this.iterate()
  }
}
