// A pool of reusable slots for the world's calls and attempts: slots are numbered, keep
// their address for the pool's lifetime (chunks are never moved), and a released slot is
// handed out again before a new one is made, so memory is bounded by the most slots ever
// in use at once, not by the number of requests in a run. Indexing is a shift and a mask,
// cheaper than std::deque's.
//
// A slot keeps what its last user left in it: the caller resets what it needs, and may
// rely on the rest (the world reuses a call's request strings this way).
#ifndef SIM_ENGINE_SLOT_POOL_H_
#define SIM_ENGINE_SLOT_POOL_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace sim {

template <typename T>
class SlotPool {
 public:
  static constexpr int kChunkBits = 10;
  static constexpr std::uint32_t kChunkSize = std::uint32_t{1} << kChunkBits;

  SlotPool() = default;
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;

  // A released slot if there is one, else a new, default-constructed one.
  std::uint32_t Acquire() {
    if (!free_.empty()) {
      const std::uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    return Add();
  }
  // A new, default-constructed slot, whatever is free.
  std::uint32_t Add() {
    if (size_ % kChunkSize == 0) chunks_.push_back(std::make_unique<T[]>(kChunkSize));
    return size_++;
  }
  void Release(std::uint32_t slot) { free_.push_back(slot); }

  T& operator[](std::uint32_t slot) { return chunks_[slot >> kChunkBits][slot & (kChunkSize - 1)]; }
  const T& operator[](std::uint32_t slot) const {
    return chunks_[slot >> kChunkBits][slot & (kChunkSize - 1)];
  }
  // Slots made so far (in use or free).
  std::uint32_t size() const { return size_; }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::uint32_t size_ = 0;
  std::vector<std::uint32_t> free_;
};

}  // namespace sim

#endif  // SIM_ENGINE_SLOT_POOL_H_
