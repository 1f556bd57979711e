// Shuffle sharding: the Dealer that turns a flow's 64-bit hash into a hand of distinct
// queue indices, mirroring k8s.io/apiserver pkg/util/shufflesharding/shufflesharding.go
// (doc/model.md#shuffle-sharding, #deal). The queue set deals each arriving request's hand from it
// (4.3), or takes the hand its flow remembers; `apfsim explain` prints the hand a flow
// is dealt.
#ifndef APF_QUEUEING_SHUFFLE_SHARDING_H_
#define APF_QUEUEING_SHUFFLE_SHARDING_H_

#include <array>
#include <cstdint>

#include "apf/base/status.h"

namespace apf {

// The number of low-order hash bits a deal may consume (MaxHashBits).
inline constexpr int kMaxHashBits = 60;
// The largest hand a valid dealer can have: hand 16 needs deck >= 16, hence 64 bits.
inline constexpr int kMaxHandSize = 15;
// Decks larger than this are "impractically large" (1<<26).
inline constexpr std::int64_t kMaxDeckSize = std::int64_t{1} << 26;

// ceil(log2(deck) * hand), the conservative estimate of the hash bits a deal consumes
// (RequiredEntropyBits). Meaningful for 1 <= hand <= deck <= 2^26. std::log2 gives the
// same ceilings as Go's math.Log2 on that whole domain: both are exact for powers of two,
// and for every other deck the product is at least 1e-8 away from an integer.
int RequiredEntropyBits(std::int64_t deck_size, std::int64_t hand_size);

// A dealt hand: `size` distinct cards in [0, deck), in deal order.
struct Hand {
  std::array<int, kMaxHandSize> cards{};
  int size = 0;

  int operator[](int i) const { return cards[i]; }
  const int* begin() const { return cards.data(); }
  const int* end() const { return cards.data() + size; }
};

// A hand kept with its flow, so that the flow's next request is not dealt again: a deal
// depends only on the hash and the deck and hand sizes, so the hand stands for as long as
// all three are the same. Empty (deck_size 0) until first dealt.
struct RememberedHand {
  std::uint64_t hash = 0;
  int deck_size = 0;
  Hand hand;
};

class Dealer {
 public:
  // Validates as NewDealer does, in its order, with its error texts: sizes not positive,
  // hand larger than deck, deck larger than 2^26, more than 60 bits of entropy needed.
  static Status Check(std::int64_t deck_size, std::int64_t hand_size);

  // A dealer for a configuration that Check() accepts.
  Dealer(int deck_size, int hand_size);

  int deck_size() const { return deck_size_; }
  int hand_size() const { return hand_size_; }

  // Deals the hand for `hash_value`: the hash is read as mixed-radix digits of bases
  // deck, deck-1, ..., and each digit picks among the cards not yet dealt.
  Hand Deal(std::uint64_t hash_value) const;
  // The same hand, taken from `memo` when it was dealt there for this hash by a dealer of
  // this configuration, else dealt afresh and kept in `memo`.
  const Hand& Deal(std::uint64_t hash_value, RememberedHand& memo) const {
    if (memo.hash != hash_value || memo.deck_size != deck_size_ || memo.hand.size != hand_size_) {
      memo.hand = Deal(hash_value);
      memo.hash = hash_value;
      memo.deck_size = deck_size_;
    }
    return memo.hand;
  }

 private:
  int deck_size_;
  int hand_size_;
  // floor((2^64 - 1) / base) for each digit's base: the deal is on the queue set's hot
  // path, and a multiply by this reciprocal and at most two corrections is exact and
  // several times cheaper than a 64-bit division.
  std::array<std::uint64_t, kMaxHandSize> reciprocals_{};
};

}  // namespace apf

#endif  // APF_QUEUEING_SHUFFLE_SHARDING_H_
