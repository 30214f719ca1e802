package dev.wds.sdk;

import dev.wds.sdk.models.BalanceList;
import dev.wds.sdk.models.Erc20Transfer;
import dev.wds.sdk.models.NftTransfer;
import dev.wds.sdk.models.Transaction;
import dev.wds.sdk.models.Transfer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A wallet's transfers and balances. */
public final class Wallets {
  private final AsyncWallets async;

  Wallets(AsyncWallets async) {
    this.async = async;
  }

  /**
   * Transfers of every kind, newest first; the first page, and through it every other:
   *
   * <pre>{@code
   * for (Transfer t : client.wallets().transfers(address, new TransferParams().chain("ethereum")).autoPagingIterable()) { … }
   * }</pre>
   */
  public Page<Transfer> transfers(String address, TransferParams params) {
    return new Page<>(Transport.await(async.transfers(address, params)));
  }

  public Page<Transfer> transfers(String address) {
    return transfers(address, new TransferParams());
  }

  /**
   * Transactions, newest first, each with its category, the rule that named it, its movements, fee and
   * net per asset; a page never splits a transaction ({@code limit} counts transactions):
   *
   * <pre>{@code
   * for (Transaction tx : client.wallets().transactions(address, new TransactionParams().chain("ethereum")).autoPagingIterable())
   *   System.out.println(tx.category() + " " + tx.rule().id());
   * }</pre>
   */
  public Page<Transaction> transactions(String address, TransactionParams params) {
    return new Page<>(Transport.await(async.transactions(address, params)));
  }

  /** ERC-20 transfers only, in the token-transfer shape ({@code tokenSymbol}). */
  public Page<Erc20Transfer> erc20Transfers(String address, TokenTransferParams params) {
    return new Page<>(Transport.await(async.erc20Transfers(address, params)));
  }

  /** ERC-721 and ERC-1155 transfers, one record per token moved. */
  public Page<NftTransfer> nftTransfers(String address, TokenTransferParams params) {
    return new Page<>(Transport.await(async.nftTransfers(address, params)));
  }

  /** Balances now, or at a block or date: {@code client.wallets().balances(address, new BalanceParams().atBlock(1))}. */
  public BalanceList balances(String address, BalanceParams params) {
    return Transport.await(async.balances(address, params));
  }

  /**
   * The wallet's history as a tax tool's CSV, written to {@code out} as it streams (constant memory; {@code out} is left open);
   * an error answer (problem+json) throws its exception:
   *
   * <pre>{@code
   * client.wallets().export(address, new ExportParams("koinly").fromDate(LocalDate.parse("2025-01-01")), Path.of("koinly-2025.csv"));
   * }</pre>
   */
  public ExportResult export(String address, ExportParams params, OutputStream out) {
    return Transport.await(async.export(address, params, out));
  }

  /** The same, to a file (created or truncated). */
  public ExportResult export(String address, ExportParams params, Path file) {
    try (OutputStream out = Files.newOutputStream(file)) {
      return export(address, params, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
