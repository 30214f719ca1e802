package dev.wds.sdk;

import dev.wds.sdk.models.BalanceList;
import dev.wds.sdk.models.Erc20Transfer;
import dev.wds.sdk.models.NftTransfer;
import dev.wds.sdk.models.Transaction;
import dev.wds.sdk.models.Transfer;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** A wallet's transfers and balances, asynchronously ({@code client.async().wallets()}). */
public final class AsyncWallets {
  private final Transport transport;

  AsyncWallets(Transport transport) {
    this.transport = transport;
  }

  /**
   * Transfers of every kind, newest first; the first page, and through it every other:
   *
   * <pre>{@code
   * client.async().wallets().transfers(address, new TransferParams().chain("ethereum")).thenCompose(AsyncPage::toList)
   * }</pre>
   */
  public CompletableFuture<AsyncPage<Transfer>> transfers(String address, TransferParams params) {
    return transport.pageAsync(path(address, "transfers"), params.query, params.cursor, Transfer.class);
  }

  public CompletableFuture<AsyncPage<Transfer>> transfers(String address) {
    return transfers(address, new TransferParams());
  }

  /**
   * Transactions, newest first, each with its category, rule, movements, fee and net per asset; a page
   * never splits a transaction ({@code limit} counts transactions).
   */
  public CompletableFuture<AsyncPage<Transaction>> transactions(String address, TransactionParams params) {
    return transport.pageAsync(path(address, "transactions"), params.query, params.cursor, Transaction.class);
  }

  /** ERC-20 transfers only, in the token-transfer shape ({@code tokenSymbol}). */
  public CompletableFuture<AsyncPage<Erc20Transfer>> erc20Transfers(String address, TokenTransferParams params) {
    return transport.pageAsync(path(address, "erc20-transfers"), params.query, params.cursor, Erc20Transfer.class);
  }

  /** ERC-721 and ERC-1155 transfers, one record per token moved. */
  public CompletableFuture<AsyncPage<NftTransfer>> nftTransfers(String address, TokenTransferParams params) {
    return transport.pageAsync(path(address, "nft-transfers"), params.query, params.cursor, NftTransfer.class);
  }

  /** Balances now, or at a block or date. */
  /**
   * The wallet's history as a tax tool's CSV, copied to {@code out} as it streams (constant memory; {@code out} is left open);
   * an error answer (problem+json) completes with its exception.
   */
  public CompletableFuture<ExportResult> export(String address, ExportParams params, OutputStream out) {
    return transport.streamAsync(Transport.Spec.get(path(address, "export"), params.query), out);
  }

  public CompletableFuture<BalanceList> balances(String address, BalanceParams params) {
    return transport.requestAsync(Transport.Spec.get(path(address, "balances"), params.query), BalanceList.class);
  }

  private static String path(String address, String endpoint) {
    return "/v1/wallets/" + URLEncoder.encode(address, StandardCharsets.UTF_8) + "/" + endpoint;
  }
}
