package dev.wds.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wds.sdk.errors.InvalidCursorException;
import dev.wds.sdk.errors.InvalidParameterException;
import dev.wds.sdk.models.Transaction;
import dev.wds.sdk.models.TransactionCategory;
import dev.wds.sdk.models.TransactionNetLine;
import dev.wds.sdk.models.Transfer;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * wallets().transactions through the real service (scripts/sdk-harness.ts): the harness's history has
 * contract deployments (fee-only), two mints (the token, an NFT), ERC-20 transactions of up to 1,000
 * transfers each (token-send) and a native send.
 */
class TransactionsTest {
  static final WdsClient client = WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(Harness.API_KEY).build();
  static final String WALLET = Harness.WALLET;

  static TransactionParams ethereum() {
    return new TransactionParams().chain("ethereum");
  }

  @Test
  void aPageHasTheNewestTransactionsWithCategoryRuleFeeMovementsAndNet() {
    Page<Transaction> page = client.wallets().transactions(WALLET, ethereum().limit(3));
    assertTrue(page.hasMore());
    assertNotNull(page.cursor());
    assertEquals(
        List.of(
            List.of(TransactionCategory.Value.MINT, "mint.from-zero", "success", true),
            List.of(TransactionCategory.Value.SEND, "send.only-out", "success", true),
            List.of(TransactionCategory.Value.TOKEN_SEND, "token-send.only-out", "success", true)),
        page.data().stream().map(t -> List.of(t.category().value(), t.rule().id(), t.status(), t.initiatedByWallet())).toList());
    Transaction nftMint = page.data().get(0), send = page.data().get(1), tokenSend = page.data().get(2);
    TransactionNetLine nft = nftMint.net().get(0);
    assertEquals(List.of(Harness.NFT, "42", "1"), List.of(nft.contractAddress(), nft.tokenId(), nft.value()));
    assertEquals("fee", send.fee().type());
    // 1 ETH and one wei sent, and the fee
    BigInteger sent = BigInteger.TEN.pow(18).add(BigInteger.ONE);
    assertEquals(List.of(sent.add(send.fee().baseUnits()).negate()), send.net().stream().map(TransactionNetLine::baseUnits).toList());
    TransactionNetLine token = tokenSend.net().stream().filter(l -> Harness.TOKEN.equals(l.contractAddress())).findFirst().orElseThrow();
    assertEquals(BigInteger.valueOf(-1_500_001L * tokenSend.movements().size()), token.baseUnits());
    assertTrue(tokenSend.movements().stream()
        .allMatch(m -> m.type().equals("erc20") && m.direction().equals("out") && m.txHash().equals(tokenSend.txHash())));
  }

  @Test
  void autoPagingFollowsTheCursorEveryTransactionOnceAndWhole() throws Exception {
    List<JsonNode> raw = Harness.rawItems("/v1/wallets/" + WALLET + "/transactions", "chain=ethereum&limit=2", "transactions");
    List<Transaction> items = new ArrayList<>();
    client.wallets().transactions(WALLET, ethereum().limit(2)).autoPagingIterable().forEach(items::add);
    assertTrue(raw.size() > 4);
    assertEquals(raw, JsonCompare.asSentAs(items, raw));
    assertEquals(items.size(), items.stream().map(Transaction::txHash).collect(Collectors.toSet()).size());
    // no transaction split across pages: together they hold exactly the wallet's records, each once
    List<String> recordIds = items.stream().flatMap(t -> t.records().stream()).map(Transfer::id).sorted().toList();
    List<String> transferIds = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(1000)).stream()
        .map(Transfer::id).sorted().toList();
    assertEquals(transferIds, recordIds);
    assertEquals(Set.of("mint", "send", "token-send", "fee-only"), items.stream().map(t -> t.category().asString()).collect(Collectors.toSet()));
    assertTrue(items.stream().allMatch(t -> t.category().isKnown()));
    assertEquals(Harness.MIN_RECORDS, items.stream()
        .filter(t -> t.category().value() == TransactionCategory.Value.TOKEN_SEND).mapToInt(t -> t.movements().size()).sum());
  }

  @Test
  void theAsyncClientWalksTheSameTransactions() {
    List<Transaction> async = client.async().wallets().transactions(WALLET, ethereum().limit(3)).thenCompose(AsyncPage::toList).join();
    List<Transaction> sync = client.wallets().transactions(WALLET, ethereum().limit(3)).stream().toList();
    assertEquals(sync, async);
  }

  @Test
  void theSdkKnowsEveryCategoryTheServicePublishes() throws Exception {
    JsonNode published = Transport.MAPPER.readTree(new java.net.URL(Harness.BASE_URL + "/openapi.json"))
        .path("components").path("schemas").path("Transaction").path("properties").path("category").path("enum");
    List<String> names = new ArrayList<>();
    published.forEach(name -> names.add(name.asText()));
    assertEquals(names, Arrays.stream(TransactionCategory.Value.values())
        .filter(v -> v != TransactionCategory.Value.UNKNOWN).map(TransactionCategory.Value::wireName).toList());
  }

  @Test
  void badParametersAreTypedErrorsNamingTheParameter() {
    assertEquals("limit", assertThrows(InvalidParameterException.class,
        () -> client.wallets().transactions(WALLET, ethereum().limit(0))).param());
    assertEquals("direction", assertThrows(InvalidParameterException.class,
        () -> client.wallets().transactions(WALLET, ethereum().direction("up"))).param());
    assertThrows(InvalidCursorException.class, () -> client.wallets().transactions(WALLET, ethereum().cursor("garbage")));
  }
}
