#include "bench/bench_util.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <vector>

#include "gen/events_generator.h"
#include "store/store_writer.h"

namespace xtfq::bench {

const std::string& ScratchDir() {
  static const std::string dir = [] {
    const char* base = std::getenv("XTFQ_BENCH_DIR");
    if (base == nullptr) base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/xtfq-bench-XXXXXX";
    std::string d = ::mkdtemp(tmpl.data());
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return d;
  }();
  return dir;
}

std::string EventsStore(uint64_t n, uint32_t page_size) {
  static std::map<std::pair<uint64_t, uint32_t>, std::string> built;
  auto& path = built[{n, page_size}];
  if (!path.empty()) return path;
  path = fmt::format("{}/events-{}-{}.xtfq", ScratchDir(), n, page_size);
  StoreOptions opts;
  opts.page_size = page_size;
  auto w = StoreWriter::CreatePath(path, opts);
  if (!w.ok()) throw std::runtime_error(w.error().message());
  ArrayId id = *(*w)->CreateArray("events", EventRecord::StoreSchema());
  EventsGenerator gen(1024, 42);
  std::byte rec[EventRecord::kSize];
  for (uint64_t i = 0; i < n; ++i) {
    gen.Next().Encode(rec);
    if (!(*w)->Append(id, rec).ok()) throw std::runtime_error("append failed");
  }
  if (!(*w)->Commit().ok()) throw std::runtime_error("commit failed");
  return path;
}

double DropFromPageCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return 1.0;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  struct stat st {};
  ::fstat(fd, &st);
  double resident = 1.0;
  if (st.st_size > 0) {
    void* m = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
      const long os_page = ::sysconf(_SC_PAGESIZE);
      std::vector<unsigned char> v((static_cast<size_t>(st.st_size) + os_page - 1) / os_page);
      if (::mincore(m, static_cast<size_t>(st.st_size), v.data()) == 0) {
        size_t in = 0;
        for (unsigned char c : v) in += c & 1;
        resident = static_cast<double>(in) / static_cast<double>(v.size());
      }
      ::munmap(m, static_cast<size_t>(st.st_size));
    }
  }
  ::close(fd);
  return resident;
}

StoreReader& IterationReader(benchmark::State& state, bool cold, const std::string& path, const ReaderOptions& options,
                             StoreReader& warm, std::unique_ptr<StoreReader>& fresh, double& resident) {
  if (!cold) return warm;
  state.PauseTiming();
  resident = DropFromPageCache(path);
  auto r = StoreReader::Open(path, options);
  if (!r.ok()) throw std::runtime_error(r.error().message());
  fresh = std::move(*r);
  state.ResumeTiming();
  return *fresh;
}

}  // namespace xtfq::bench
