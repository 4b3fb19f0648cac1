// SpinWait: how a thread waits for another's counter (store/SealQueue's writer side, index/
// LeafPrefetch): a short spin with the CPU's pause hint, since the other thread is usually a page
// of work away, then a sleep on the atomic (futex). 2000 pauses are some 10-300 us, depending on
// the CPU. (SealQueue's idle worker spins 200 of them itself: seal_queue.cpp.)
//
// Thread-safety: free functions over atomics.
#pragma once

#include <atomic>
#include <cstdint>

namespace xtfq {

inline void SpinPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Returns once `counter` is above `value`, or `stop` (when given) is set.
inline void WaitPast(const std::atomic<uint64_t>& counter, uint64_t value, const std::atomic<bool>* stop = nullptr) {
  auto done = [&](uint64_t now) { return now > value || (stop != nullptr && stop->load(std::memory_order_acquire)); };
  for (int i = 0; i < 2000; ++i) {
    if (done(counter.load(std::memory_order_acquire))) return;
    SpinPause();
  }
  for (uint64_t now = counter.load(std::memory_order_acquire); !done(now);
       now = counter.load(std::memory_order_acquire)) {
    counter.wait(now, std::memory_order_acquire);
  }
}

}  // namespace xtfq
