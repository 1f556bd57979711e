// The shuffle-sharding dealer (doc/model.md#shuffle-sharding): the appendix A vectors, NewDealer's
// validity checks and their boundaries, and properties of the deal that hold for every hash.
#include "apf/queueing/shuffle_sharding.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <vector>

#include "sim/engine/random.h"
#include "sim/model/dealer.h"

using apf::Dealer;
using apf::Hand;

namespace {

std::vector<int> DealVector(int deck, int hand, std::uint64_t hash) {
  Hand h = Dealer(deck, hand).Deal(hash);
  return std::vector<int>(h.begin(), h.end());
}

}  // namespace

TEST_CASE("deals match the test vectors of doc/model.md appendix A", "[dealer]") {
  // hashFlowID("global-default", "alice")
  CHECK(DealVector(128, 6, 17644606172554983095ULL) == std::vector<int>{55, 62, 126, 125, 105, 1});
  CHECK(DealVector(64, 6, 17644606172554983095ULL) == std::vector<int>{55, 56, 51, 36, 11, 5});
  // hashFlowID("service-accounts", "system:serviceaccount:default:loadtest")
  CHECK(DealVector(128, 6, 18245108773366159178ULL) == std::vector<int>{74, 109, 18, 115, 14, 113});
  CHECK(DealVector(64, 6, 18245108773366159178ULL) == std::vector<int>{10, 1, 40, 19, 44, 28});
  // hashFlowID("kube-controller-manager", "")
  CHECK(DealVector(128, 6, 14257900033262264633ULL) == std::vector<int>{57, 103, 71, 102, 95, 91});
  CHECK(DealVector(64, 6, 14257900033262264633ULL) == std::vector<int>{57, 29, 61, 56, 39, 18});
}

TEST_CASE("a small deal worked by hand", "[dealer]") {
  // Deck 5, hand 3, hash 47. Digits: 47 % 5 = 2 (47 / 5 = 9), 9 % 4 = 1 (9 / 4 = 2),
  // 2 % 3 = 2. Cards: 2; then 1 is below r0 = 2, so 1; then 2 >= r1 = 1 -> 3, and
  // 3 >= r0 = 2 -> 4. Hand {2, 1, 4}.
  CHECK(DealVector(5, 3, 47) == std::vector<int>{2, 1, 4});
}

TEST_CASE("required entropy bits are ceil(log2(deck) * hand)", "[dealer]") {
  // The examples of doc/model.md#shuffle-sharding.
  CHECK(apf::RequiredEntropyBits(128, 6) == 42);
  CHECK(apf::RequiredEntropyBits(64, 6) == 36);
  CHECK(apf::RequiredEntropyBits(16, 4) == 16);
  CHECK(apf::RequiredEntropyBits(1024, 6) == 60);
  // log2(1025) = 10.0014..., times 6 = 60.008... -> 61.
  CHECK(apf::RequiredEntropyBits(1025, 6) == 61);
  CHECK(apf::RequiredEntropyBits(1, 1) == 0);
}

TEST_CASE("NewDealer's four validity checks, their order and their error texts", "[dealer]") {
  // The texts are shufflesharding.go's fmt.Errorf formats.
  CHECK(Dealer::Check(0, 1).message() == "deckSize 0 or handSize 1 is not positive");
  CHECK(Dealer::Check(4, -1).message() == "deckSize 4 or handSize -1 is not positive");
  CHECK(Dealer::Check(4, 5).message() == "handSize 5 is greater than deckSize 4");
  CHECK(Dealer::Check((1 << 26) + 1, 1).message() == "deckSize 67108865 is impractically large");
  CHECK(Dealer::Check(1 << 26, 1).ok());
  // Checked in order: a too-large deck with a too-large hand reports the hand first.
  CHECK(Dealer::Check(100000000, 200000000).message() ==
        "handSize 200000000 is greater than deckSize 100000000");
  // The entropy boundary: deck 1024 hand 6 needs exactly 60 bits and is valid.
  CHECK(Dealer::Check(1024, 6).ok());
  CHECK(Dealer::Check(1025, 6).message() ==
        "required entropy bits of deckSize 1025 and handSize 6 is greater than 60");
  // Hand 15 is possible (deck 16: 4 * 15 = 60 bits); hand 16 never is (deck 16: 64 bits).
  CHECK(Dealer::Check(16, 15).ok());
  CHECK(Dealer::Check(16, 16).message() ==
        "required entropy bits of deckSize 16 and handSize 16 is greater than 60");
  CHECK_FALSE(Dealer::Check(17, 15).ok());  // log2(17) * 15 = 61.3
  CHECK(Dealer::Check(1, 1).ok());
}

TEST_CASE("every hand has distinct cards in range, for random configurations", "[dealer]") {
  sim::Random random(20260407);
  for (int trial = 0; trial < 20000; ++trial) {
    const int deck = 1 + static_cast<int>(random.UniformInt(2000));
    const int hand = 1 + static_cast<int>(random.UniformInt(apf::kMaxHandSize));
    if (!Dealer::Check(deck, hand).ok()) continue;
    Hand h = Dealer(deck, hand).Deal(random.NextU64());
    REQUIRE(h.size == hand);
    std::set<int> seen;
    for (int card : h) {
      REQUIRE(card >= 0);
      REQUIRE(card < deck);
      seen.insert(card);
    }
    REQUIRE(static_cast<int>(seen.size()) == hand);
  }
}

TEST_CASE("the deal's digits are exactly those of plain division", "[dealer]") {
  // The dealer divides by multiplying with a reciprocal; here the digits and cards are
  // recomputed with / and %, as shufflesharding.go does, for random decks and hashes,
  // extreme hashes included.
  sim::Random random(99);
  for (int trial = 0; trial < 200000; ++trial) {
    const int deck = 1 + static_cast<int>(random.UniformInt(
                             trial % 2 == 0 ? 64 : static_cast<std::uint64_t>(apf::kMaxDeckSize)));
    const int hand = 1 + static_cast<int>(random.UniformInt(std::min(deck, apf::kMaxHandSize)));
    if (!Dealer::Check(deck, hand).ok()) continue;
    std::uint64_t hash = random.NextU64();
    if (trial % 7 == 0) hash = UINT64_MAX - random.UniformInt(1000);
    if (trial % 11 == 0) hash = random.UniformInt(1000);
    std::vector<int> remainders;
    std::uint64_t h = hash;
    for (int i = 0; i < hand; ++i) {
      remainders.push_back(static_cast<int>(h % static_cast<std::uint64_t>(deck - i)));
      h /= static_cast<std::uint64_t>(deck - i);
    }
    std::vector<int> expected;
    for (int i = 0; i < hand; ++i) {
      int card = remainders[i];
      for (int j = i; j > 0; --j) card += card >= remainders[j - 1] ? 1 : 0;
      expected.push_back(card);
    }
    REQUIRE(DealVector(deck, hand, hash) == expected);
  }
}

TEST_CASE("a remembered hand is the hand a fresh deal gives, for every hash and dealer",
          "[dealer]") {
  // The memo is filled by the first deal and must then give Deal's own answer: for the
  // same flow again, and after the flow moves to a dealer of another deck or hand size,
  // including sizes that share the deck or the hand with the one that dealt the memo.
  sim::Random random(20261204);
  const std::vector<std::pair<int, int>> configs = {{64, 8},  {64, 6}, {128, 8}, {128, 6},
                                                    {16, 15}, {1, 1},  {7, 3}};
  std::vector<Dealer> dealers;
  for (const auto& [deck, hand] : configs) dealers.emplace_back(deck, hand);
  for (int trial = 0; trial < 20000; ++trial) {
    std::uint64_t hash = random.NextU64();
    if (trial % 13 == 0) hash = random.UniformInt(4);  // hash 0 is a hash like any other
    apf::RememberedHand memo;
    for (int round = 0; round < 3; ++round) {
      const Dealer& dealer = dealers[random.UniformInt(dealers.size())];
      const Hand fresh = dealer.Deal(hash);
      const Hand& remembered = dealer.Deal(hash, memo);
      REQUIRE(std::vector<int>(remembered.begin(), remembered.end()) ==
              std::vector<int>(fresh.begin(), fresh.end()));
      REQUIRE(memo.hash == hash);
    }
    // Another flow's hash through the same memo is dealt afresh, not taken from it.
    const std::uint64_t other = hash ^ 1;
    const Hand& again = dealers[0].Deal(other, memo);
    const Hand fresh = dealers[0].Deal(other);
    REQUIRE(std::vector<int>(again.begin(), again.end()) ==
            std::vector<int>(fresh.begin(), fresh.end()));
  }
}

TEST_CASE("a remembered hand is kept while it stands and replaced when it does not", "[dealer]") {
  // hashFlowID("global-default", "alice") and the appendix A hands for decks 128 and 64.
  const std::uint64_t hash = 17644606172554983095ULL;
  apf::RememberedHand memo;
  Dealer(128, 6).Deal(hash, memo);
  CHECK(memo.deck_size == 128);
  // A tampered card shows whether the next deal took the memo or dealt afresh.
  memo.hand.cards[0] = 0;
  CHECK(Dealer(128, 6).Deal(hash, memo)[0] == 0);
  CHECK(Dealer(64, 6).Deal(hash, memo)[0] == 55);
  CHECK(std::vector<int>(memo.hand.begin(), memo.hand.end()) ==
        std::vector<int>{55, 56, 51, 36, 11, 5});
  memo.hand.cards[0] = 0;
  CHECK(Dealer(64, 5).Deal(hash, memo).size == 5);
  CHECK(memo.hand[0] == 55);
}

TEST_CASE("hash values below deck*(deck-1)*... deal every ordered hand exactly once", "[dealer]") {
  // The deal is a mixed-radix decoding followed by un-ranking, so it is a bijection from
  // [0, 7*6*5) onto the 210 ordered 3-hands of a 7-card deck.
  Dealer dealer(7, 3);
  std::set<std::vector<int>> hands;
  for (std::uint64_t hash = 0; hash < 7 * 6 * 5; ++hash) {
    Hand h = dealer.Deal(hash);
    hands.insert(std::vector<int>(h.begin(), h.end()));
  }
  CHECK(hands.size() == 210);
}

TEST_CASE("random hashes spread the cards uniformly over the deck at every position", "[dealer]") {
  // Deck 16, hand 4, 160 000 uniform hashes: each card is expected 10 000 times at each
  // position. A chi-square statistic with 15 degrees of freedom above 44 has probability
  // below 1e-4 for a uniform deal; the seed is fixed, so the test is deterministic.
  constexpr int kDeck = 16, kHand = 4, kDeals = 160000;
  Dealer dealer(kDeck, kHand);
  sim::Random random(7);
  std::vector<std::vector<int>> counts(kHand, std::vector<int>(kDeck, 0));
  for (int i = 0; i < kDeals; ++i) {
    Hand h = dealer.Deal(random.NextU64());
    for (int p = 0; p < kHand; ++p) ++counts[p][h[p]];
  }
  const double expected = static_cast<double>(kDeals) / kDeck;
  for (int p = 0; p < kHand; ++p) {
    double chi2 = 0;
    for (int c = 0; c < kDeck; ++c) {
      chi2 += (counts[p][c] - expected) * (counts[p][c] - expected) / expected;
    }
    INFO("position " << p);
    CHECK(chi2 < 44);
  }
}

TEST_CASE("the dealer replay writes hands and NewDealer errors", "[dealer][replay]") {
  nlohmann::json in = nlohmann::json::parse(R"([
    {"deckSize": 128, "handSize": 6, "hashValue": "17644606172554983095"},
    {"deckSize": 1025, "handSize": 6, "hashValue": "0"}])");
  nlohmann::json out = sim::ReplayDealerCases(in, "test");
  CHECK(out[0] == nlohmann::json::parse(R"({"valid": true, "hand": [55, 62, 126, 125, 105, 1]})"));
  CHECK(out[1] == nlohmann::json::parse(
                      R"({"valid": false, "error":
                          "required entropy bits of deckSize 1025 and handSize 6 is greater than 60"})"));
}
