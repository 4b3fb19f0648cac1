// AheadQueue<T>: makes items 0, 1, ... n-1 (make(k)) on one worker thread, one item ahead of the
// thread that takes them in order (Next), so that making item k + 1 (reading and parsing a
// snapshot) overlaps using item k (importing it). At most two items are alive at once besides the
// one in use. Items handed back (Retire) are destroyed on the worker, which frees their memory
// beside the user's work rather than on its thread. When no thread can be started, Next makes
// the item itself.
//
// Thread-safety: one thread calls Next and Retire; `make` runs on the worker.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace xtfq {

template <class T>
class AheadQueue {
 public:
  AheadQueue(size_t n, std::function<T(size_t)> make, bool threaded = true) : n_(n), make_(std::move(make)) {
    if (!threaded || n == 0) return;
    try {
      worker_ = std::thread([this] { Work(); });
    } catch (const std::system_error&) {
      // Made on the caller's thread instead.
    }
  }
  AheadQueue(const AheadQueue&) = delete;
  AheadQueue& operator=(const AheadQueue&) = delete;
  ~AheadQueue() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  // The next item (k = 0, 1, ... in order); call at most n times.
  T Next() {
    if (!worker_.joinable()) return make_(taken_++);
    std::unique_lock l(m_);
    cv_.wait(l, [&] { return ready_.has_value(); });
    T item = std::move(*ready_);
    ready_.reset();
    ++taken_;
    l.unlock();
    cv_.notify_all();
    return item;
  }
  // An item taken and used: destroyed on the worker (here when there is none).
  void Retire(T&& used) {
    if (!worker_.joinable()) return;
    std::lock_guard l(m_);
    retired_.push_back(std::move(used));
  }

 private:
  void Work() {
    for (size_t k = 0; k < n_; ++k) {
      T item = make_(k);
      std::vector<T> retired;
      {
        std::unique_lock l(m_);
        cv_.wait(l, [&] { return !ready_.has_value() || stop_; });
        if (stop_) return;
        ready_.emplace(std::move(item));
        retired.swap(retired_);
      }
      cv_.notify_all();
      retired.clear();  // freed here, off the user's thread
    }
  }

  size_t n_;
  std::function<T(size_t)> make_;
  size_t taken_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
  std::optional<T> ready_;  // made, not yet taken
  std::vector<T> retired_;  // handed back, not yet freed
  bool stop_ = false;
  std::thread worker_;  // last: started once the rest is built
};

}  // namespace xtfq
