// Load on the viewer's server: 100 concurrent loopback clients, each on its own keep-alive
// connection, ask random tiles (/api/grid of random windows, ranks and shapes) for 2, 5 or 30 s by
// tier (tests/tier.h); every answer must be a 200 whose JSON has the tile asked, and the server must
// answer a plain request afterwards. Prints the latency percentiles (the figure in
// docs/benchmarks.md comes from the 30 s run).
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "serve/http_server.h"
#include "serve/viewer_api.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::serve {
namespace {

using test::Why;

// One keep-alive connection to 127.0.0.1:port.
class Client {
 public:
  explicit Client(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET, a.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    ok_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    int one = 1;
    if (ok_) setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ok_; }
  // GET target; the status and body (Content-Length framed), or status 0 on a broken connection.
  std::pair<int, std::string> Get(const std::string& target) {
    const std::string req = fmt::format("GET {} HTTP/1.1\r\nHost: x\r\n\r\n", target);
    if (write(fd_, req.data(), req.size()) != static_cast<ssize_t>(req.size())) return {0, ""};
    size_t head_end;
    while ((head_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return {0, ""};
    }
    const std::string head = buf_.substr(0, head_end);
    const int status = std::atoi(head.c_str() + 9);
    size_t len = 0;
    const size_t cl = head.find("Content-Length: ");
    if (cl != std::string::npos) len = std::strtoull(head.c_str() + cl + 16, nullptr, 10);
    while (buf_.size() < head_end + 4 + len) {
      if (!Fill()) return {0, ""};
    }
    std::string body = buf_.substr(head_end + 4, len);
    buf_.erase(0, head_end + 4 + len);
    return {status, std::move(body)};
  }

 private:
  bool Fill() {
    char b[65536];
    const ssize_t n = read(fd_, b, sizeof b);
    if (n <= 0) return false;
    buf_.append(b, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  bool ok_ = false;
  std::string buf_;
};

TEST_CASE("serve: 100 concurrent clients asking random tiles get every answer" * doctest::test_suite("long")) {
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen darshan 100000 --ranks 64 --files 100 -o d.darshan").status == 0);
  REQUIRE(test::Xtfq(dir, "import d.darshan -o d.xtfq").status == 0);
  auto api = ViewerApi::Open({dir.File("d.xtfq")}, "t");
  REQUIRE_MESSAGE(api.ok(), Why(api));
  HttpServer server;
  auto port = server.Start("127.0.0.1", 0, [&](const HttpRequest& r) { return (*api)->Handle(r); });
  REQUIRE_MESSAGE(port.ok(), Why(port));
  const auto length = std::chrono::seconds(test::ByTier(2, 5, 30));
  constexpr int kClients = 100;
  std::atomic<uint64_t> answers{0}, errors{0};
  std::mutex mutex;
  std::vector<double> latencies;  // ms
  std::string first_error;
  const auto end = std::chrono::steady_clock::now() + length;
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      Client c(*port);
      std::mt19937_64 rng(static_cast<uint64_t>(i));
      std::vector<double> mine;
      if (!c.ok()) {
        ++errors;
        return;
      }
      while (std::chrono::steady_clock::now() < end) {
        const int t1 = static_cast<int>(rng() % 3000), w = 1 + static_cast<int>(rng() % 600);
        const int r1 = static_cast<int>(rng() % 60), rows = 1 + static_cast<int>(rng() % 4);
        const int cols = 50 + static_cast<int>(rng() % 350);
        const std::string target =
            fmt::format("/api/grid?token=t&time={}:{}&ranks={}:{}&cols={}&rows={}&metric=ops,bytes&snap={}", t1, t1 + w,
                        r1, r1 + rows, cols, rows, rng() % 2);
        const auto t0 = std::chrono::steady_clock::now();
        auto [status, body] = c.Get(target);
        mine.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        bool good = status == 200;
        if (good) {
          const auto j = nlohmann::json::parse(body, nullptr, false);
          good = !j.is_discarded() && j["rows"].size() == static_cast<size_t>(rows) && j["cols"].get<int>() >= 1;
        }
        if (good) {
          ++answers;
        } else {
          ++errors;
          std::lock_guard lock(mutex);
          if (first_error.empty()) first_error = fmt::format("{} -> {} {}", target, status, body.substr(0, 200));
          if (status == 0) break;
        }
      }
      std::lock_guard lock(mutex);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK_MESSAGE(errors == 0, first_error);
  CHECK(answers > static_cast<uint64_t>(kClients));
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double q) {
    return latencies.empty() ? 0.0 : latencies[static_cast<size_t>(q * (latencies.size() - 1))];
  };
  MESSAGE(
      fmt::format("{} clients for {} s: {} answers ({:.0f}/s), {} errors; latency p50 {:.2f} ms, p99 {:.2f} ms, "
                  "max {:.2f} ms",
                  kClients, length.count(), answers.load(), answers.load() / static_cast<double>(length.count()),
                  errors.load(), pct(0.5), pct(0.99), pct(1.0)));
  // It still serves.
  Client after(*port);
  REQUIRE(after.ok());
  CHECK(after.Get("/api/stores?token=t").first == 200);
  server.Stop();
}

}  // namespace
}  // namespace xtfq::serve
