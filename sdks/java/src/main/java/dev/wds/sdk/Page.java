package dev.wds.sdk;

import dev.wds.sdk.models.ListEnvelope;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * One page of a list call, and the way to all the others:
 *
 * <pre>{@code
 * for (Transfer t : client.wallets().transfers(address).autoPagingIterable()) System.out.println(t.value());
 * }</pre>
 *
 * The synchronous view of an {@link AsyncPage}: the next page is the asynchronous client's, waited for.
 */
public final class Page<T> {
  private final AsyncPage<T> page;

  Page(AsyncPage<T> page) {
    this.page = page;
  }

  /** This page's items (records, or transactions), newest first. */
  public List<T> data() {
    return page.data();
  }

  public String cursor() {
    return page.cursor();
  }

  public boolean hasMore() {
    return page.hasMore();
  }

  /** The whole answer: address, chain, chains, unavailableChains, currency, and fields not known yet. */
  public ListEnvelope<T> envelope() {
    return page.envelope();
  }

  public ResponseInfo response() {
    return page.response();
  }

  /** The next page; throws NoSuchElementException on the last one. */
  public Page<T> nextPage() {
    if (!hasMore() || cursor() == null) throw new NoSuchElementException("this is the last page");
    return new Page<>(Transport.await(page.nextPage()));
  }

  /** Every record from this page on, following {@code cursor} until {@code hasMore} is false. */
  public Iterable<T> autoPagingIterable() {
    return autoPagingIterable(Long.MAX_VALUE);
  }

  /** At most {@code maxItems} records from this page on. */
  public Iterable<T> autoPagingIterable(long maxItems) {
    return () -> new Iterator<>() {
      private Page<T> current = Page.this;
      private int index = 0;
      private long yielded = 0;

      @Override
      public boolean hasNext() {
        if (yielded >= maxItems) return false;
        while (index >= current.data().size()) {
          if (!current.hasMore() || current.cursor() == null) return false;
          current = current.nextPage();
          index = 0;
        }
        return true;
      }

      @Override
      public T next() {
        if (!hasNext()) throw new NoSuchElementException();
        yielded++;
        return current.data().get(index++);
      }
    };
  }

  /** The records from this page on as a sequential Stream (pages fetched as it is consumed). */
  public Stream<T> stream() {
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(autoPagingIterable().iterator(), Spliterator.ORDERED), false);
  }
}
