#include "apf/queueing/shuffle_sharding.h"

#include <cassert>
#include <cmath>
#include <string>

namespace apf {

int RequiredEntropyBits(std::int64_t deck_size, std::int64_t hand_size) {
  return static_cast<int>(
      std::ceil(std::log2(static_cast<double>(deck_size)) * static_cast<double>(hand_size)));
}

Status Dealer::Check(std::int64_t deck_size, std::int64_t hand_size) {
  const std::string deck = std::to_string(deck_size);
  const std::string hand = std::to_string(hand_size);
  if (deck_size <= 0 || hand_size <= 0) {
    return Status::Invalid("deckSize " + deck + " or handSize " + hand + " is not positive");
  }
  if (hand_size > deck_size) {
    return Status::Invalid("handSize " + hand + " is greater than deckSize " + deck);
  }
  if (deck_size > kMaxDeckSize) {
    return Status::Invalid("deckSize " + deck + " is impractically large");
  }
  if (RequiredEntropyBits(deck_size, hand_size) > kMaxHashBits) {
    return Status::Invalid("required entropy bits of deckSize " + deck + " and handSize " + hand +
                           " is greater than " + std::to_string(kMaxHashBits));
  }
  return Status::OK();
}

Dealer::Dealer(int deck_size, int hand_size) : deck_size_(deck_size), hand_size_(hand_size) {
  assert(Check(deck_size, hand_size).ok());
  for (int i = 0; i < hand_size_; ++i) {
    reciprocals_[i] = UINT64_MAX / static_cast<std::uint64_t>(deck_size_ - i);
  }
}

Hand Dealer::Deal(std::uint64_t hash_value) const {
  // First the hand's digits in the mixed radix deck, deck-1, ...; digit i ranks the card
  // among the deck_size - i cards left after i have been dealt.
  std::array<int, kMaxHandSize> remainders;
  for (int i = 0; i < hand_size_; ++i) {
    const std::uint64_t base = static_cast<std::uint64_t>(deck_size_ - i);
    // With m = floor((2^64-1)/base), floor(hash * m / 2^64) is the quotient or up to two
    // less; the remainder check settles it exactly.
    std::uint64_t quotient = static_cast<std::uint64_t>(
        (static_cast<unsigned __int128>(hash_value) * reciprocals_[i]) >> 64);
    std::uint64_t remainder = hash_value - quotient * base;
    while (remainder >= base) {
      remainder -= base;
      ++quotient;
    }
    remainders[i] = static_cast<int>(remainder);
    hash_value = quotient;
  }
  // Then un-rank: walking back over the earlier digits, each one at or below the card
  // pushes it up by one. The comparison is with the raw digits, not the adjusted cards;
  // that is what Deal does, and it still yields distinct cards.
  Hand hand;
  hand.size = hand_size_;
  for (int i = 0; i < hand_size_; ++i) {
    int card = remainders[i];
    for (int j = i; j > 0; --j) {
      if (card >= remainders[j - 1]) ++card;
    }
    hand.cards[i] = card;
  }
  return hand;
}

}  // namespace apf
