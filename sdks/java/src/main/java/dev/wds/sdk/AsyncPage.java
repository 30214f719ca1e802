package dev.wds.sdk;

import dev.wds.sdk.models.ListEnvelope;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One page of a list call of the asynchronous client, and the way to all the others:
 *
 * <pre>{@code
 * client.async().wallets().transfers(address, new TransferParams().chain("ethereum"))
 *     .thenCompose(page -> page.forEach(t -> System.out.println(t.value())))
 *     .join();
 * }</pre>
 *
 * Pages are asked for one at a time, the next once the records before it have been handed on; a
 * failed page fails the returned future with the error of its class (after the client's retries).
 */
public final class AsyncPage<T> {
  private final ListEnvelope<T> envelope;
  private final ResponseInfo response;
  private final Function<String, CompletableFuture<AsyncPage<T>>> fetch;

  AsyncPage(ListEnvelope<T> envelope, ResponseInfo response, Function<String, CompletableFuture<AsyncPage<T>>> fetch) {
    this.envelope = envelope;
    this.response = response;
    this.fetch = fetch;
  }

  /** This page's items (records, or transactions), newest first. */
  public List<T> data() {
    return envelope.items();
  }

  public String cursor() {
    return envelope.cursor();
  }

  public boolean hasMore() {
    return envelope.hasMore();
  }

  /** The whole answer: address, chain, chains, unavailableChains, currency, and fields not known yet. */
  public ListEnvelope<T> envelope() {
    return envelope;
  }

  public ResponseInfo response() {
    return response;
  }

  /** The next page; fails with NoSuchElementException on the last one. */
  public CompletableFuture<AsyncPage<T>> nextPage() {
    if (!hasMore() || cursor() == null) return CompletableFuture.failedFuture(new NoSuchElementException("this is the last page"));
    return fetch.apply(cursor());
  }

  /**
   * Hands every record from this page on to {@code action}, in order, one at a time, following
   * {@code cursor} until {@code hasMore} is false; completes when the last one has been handled. The
   * action runs on the thread that completed its page's request; if it throws, no further page is asked
   * for and the future fails with its exception.
   */
  public CompletableFuture<Void> forEach(Consumer<? super T> action) {
    return forEach(Long.MAX_VALUE, action);
  }

  /** Like {@link #forEach(Consumer)}, for at most {@code maxItems} records. */
  public CompletableFuture<Void> forEach(long maxItems, Consumer<? super T> action) {
    return new Walk<T>(action).start(this, maxItems);
  }

  /** Every record from this page on. */
  public CompletableFuture<List<T>> toList() {
    return toList(Long.MAX_VALUE);
  }

  /** At most {@code maxItems} records from this page on. */
  public CompletableFuture<List<T>> toList(long maxItems) {
    List<T> items = new ArrayList<>();
    return forEach(maxItems, items::add).thenApply(ignored -> items);
  }

  /** One forEach: the records handed on so far, and the page request in flight (cancelled with {@code done}). */
  private static final class Walk<T> {
    private final Consumer<? super T> action;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile CompletableFuture<AsyncPage<T>> inFlight;

    Walk(Consumer<? super T> action) {
      this.action = action;
      done.whenComplete((value, failure) -> {
        CompletableFuture<AsyncPage<T>> request = inFlight;
        if (done.isCancelled() && request != null) request.cancel(true);
      });
    }

    CompletableFuture<Void> start(AsyncPage<T> first, long maxItems) {
      visit(first, maxItems);
      return done;
    }

    private void visit(AsyncPage<T> page, long left) {
      long remaining = left;
      try {
        for (T item : page.data()) {
          if (remaining <= 0 || done.isDone()) break;
          action.accept(item);
          remaining--;
        }
      } catch (RuntimeException | Error e) {
        done.completeExceptionally(e);
        return;
      }
      if (remaining <= 0 || done.isDone() || !page.hasMore() || page.cursor() == null) {
        done.complete(null);
        return;
      }
      long next = remaining;
      CompletableFuture<AsyncPage<T>> request = page.nextPage();
      inFlight = request;
      if (done.isCancelled()) request.cancel(true);
      request.whenComplete((nextPage, failure) -> {
        if (failure != null) done.completeExceptionally(Transport.unwrap(failure));
        else visit(nextPage, next);
      });
    }
  }
}
