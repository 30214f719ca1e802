import type { WithResponse } from './core.ts'

/** What every page of a list endpoint has: the cursor of the next page while `hasMore`. */
export type PageEnvelope = { cursor: string | null; hasMore: boolean }

/** A page of a transfer list endpoint: the envelope as the API sends it (`cursor`, `hasMore`, the records). */
export type Page<Item> = PageEnvelope & { transfers: Item[] }

export type IterateOptions = {
  /** Stop after this many items (all of them when omitted). */
  maxItems?: number
}

/**
 * The answer of a list call: await it for the first page, or iterate for every item across pages
 * (following `cursor` until `hasMore` is false):
 *
 *   for await (const transfer of client.wallets.transfers(address).iterate()) console.log(transfer.value)
 *
 * `itemsOf` picks a page's items: its `transfers`, or its `transactions` for `wallets.transactions`.
 */
export class PagePromise<Item, P extends PageEnvelope> implements PromiseLike<WithResponse<P>> {
  #first: Promise<WithResponse<P>> | undefined

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<WithResponse<P>>,
    private readonly startCursor: string | undefined,
    private readonly itemsOf: (page: P) => readonly Item[] = (page) => (page as P & Page<Item>).transfers,
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

  /** Every item, newest first, each once. */
  async *iterate({ maxItems = Number.POSITIVE_INFINITY }: IterateOptions = {}): AsyncGenerator<Item> {
    if (maxItems <= 0) return
    let count = 0
    for await (const page of this.pages()) {
      for (const item of this.itemsOf(page)) {
        yield item
        if (++count >= maxItems) return
      }
    }
  }

  [Symbol.asyncIterator](): AsyncGenerator<Item> {
    return this.iterate()
  }
}
