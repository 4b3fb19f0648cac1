// LineReader against a naive split of the same bytes, at read sizes that put line ends on and
// across every chunk boundary; and AheadQueue's order, hand-back and early stop.
#include "importers/common/line_reader.h"

#include <doctest/doctest.h>

#include <atomic>
#include <random>

#include "importers/common/ahead_queue.h"
#include "store/string_file.h"
#include "tests/text_file.h"
#include "tests/why.h"

namespace xtfq {
namespace {

using test::Why;

std::vector<std::string> NaiveLines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) {
      out.push_back(text.substr(at));
      break;
    }
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

StringFile FileOf(const std::string& text) { return test::TextFile("lines.txt", text); }

TEST_CASE("line reader: views and copies give the lines of a naive split, at every chunk size") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::string text;
    const int lines = static_cast<int>(rng() % 60);
    for (int i = 0; i < lines; ++i) {
      const size_t len = rng() % 4 == 0 ? rng() % 300 : rng() % 12;  // empty, short and long lines
      for (size_t j = 0; j < len; ++j) text += static_cast<char>('a' + rng() % 26);
      if (rng() % 8 == 0) text += '\r';
      if (i + 1 < lines || rng() % 2 == 0) text += '\n';  // with or without a last newline
    }
    const std::vector<std::string> want = NaiveLines(text);
    for (size_t chunk : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{1} << 20}) {
      CAPTURE(trial);
      CAPTURE(chunk);
      for (bool view : {true, false}) {
        StringFile f = FileOf(text);
        LineReader r(f, size_t{16} << 20, chunk);
        std::vector<std::string> got;
        for (;;) {
          Result<bool> more = false;
          std::string copy;
          std::string_view v;
          more = view ? r.Next(v) : r.Next(copy);
          REQUIRE_MESSAGE(more.ok(), Why(more));
          if (!*more) break;
          got.emplace_back(view ? std::string(v) : copy);
          CHECK(r.number() == got.size());
        }
        CHECK(got == want);
      }
    }
  }
}

TEST_CASE("line reader: a line longer than the limit is an error naming the file and the line") {
  const std::string text = "short\n" + std::string(100, 'x') + "\nafter\n";
  for (size_t chunk : {size_t{16}, size_t{1} << 20}) {
    StringFile f = FileOf(text);
    LineReader r(f, 50, chunk);
    std::string_view v;
    REQUIRE(*r.Next(v));
    CHECK(v == "short");
    auto second = r.Next(v);
    REQUIRE(!second.ok());
    CHECK(second.error().message() == "lines.txt: line 2: longer than 50 bytes");
  }
}

TEST_CASE("ahead queue: items in order, handed back, and an early stop") {
  for (bool threaded : {true, false}) {
    CAPTURE(threaded);
    std::atomic<int> made = 0;
    {
      AheadQueue<std::vector<int>> q(
          50,
          [&](size_t k) {
            ++made;
            return std::vector<int>(k + 1, static_cast<int>(k));
          },
          threaded);
      for (size_t k = 0; k < 50; ++k) {
        std::vector<int> v = q.Next();
        CHECK(v == std::vector<int>(k + 1, static_cast<int>(k)));
        q.Retire(std::move(v));
      }
    }
    CHECK(made == 50);
    // Stopped after two of a thousand items: the worker makes at most two more, then ends.
    made = 0;
    {
      AheadQueue<int> q(
          1000, [&](size_t k) { return ++made, static_cast<int>(k); }, threaded);
      CHECK(q.Next() == 0);
      CHECK(q.Next() == 1);
    }
    CHECK(made <= 4);
  }
}

}  // namespace
}  // namespace xtfq
