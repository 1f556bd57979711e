#include "sim/model/dealer.h"

#include "apf/queueing/shuffle_sharding.h"
#include "sim/io/json_input.h"

namespace sim {

nlohmann::json ReplayDealerCases(const nlohmann::json& cases, const std::string& source) {
  JsonField all(cases, source, "");
  all.ExpectArray();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < all.size(); ++i) {
    JsonField c = all.At(i);
    c.ExpectObject({"deckSize", "handSize", "hashValue"});
    const std::int64_t deck_size = c["deckSize"].Int();
    const std::int64_t hand_size = c["handSize"].Int();
    const std::uint64_t hash_value = c["hashValue"].Uint64FromDecimalString();
    apf::Status status = apf::Dealer::Check(deck_size, hand_size);
    if (!status.ok()) {
      out.push_back({{"valid", false}, {"error", status.message()}});
      continue;
    }
    apf::Dealer dealer(static_cast<int>(deck_size), static_cast<int>(hand_size));
    nlohmann::json hand = nlohmann::json::array();
    for (int card : dealer.Deal(hash_value)) hand.push_back(card);
    out.push_back({{"valid", true}, {"hand", std::move(hand)}});
  }
  return out;
}

}  // namespace sim
