// Store: one committed snapshot of a store file, opened read-only.
//
// Open() takes the newest valid superblock, leases its generation (File::HoldGeneration; docs/format.md,
// "Readers beside a writer"), checks that the file holds all its pages, reads the catalogue pages
// (each verified) and decodes and validates the catalogue. After that the snapshot is immutable:
// record pages are read through a PageSource (MakeSource) and the page cache above it. A writer
// committing later neither changes this snapshot's catalogue nor reuses a page it reads while the
// Store lives (the lease ends with it); reopen to see the new generation.
//
// Thread-safety: const methods and ReadPage may be called from several threads at once.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "store/catalogue.h"
#include "store/file.h"
#include "store/page_header.h"
#include "store/page_key.h"
#include "store/page_map_reader.h"
#include "store/page_source.h"
#include "store/superblock.h"

namespace xtfq {

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(std::unique_ptr<File> file);
  // Opens the file at `path` read-only.
  static Result<std::unique_ptr<Store>> OpenPath(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& name() const { return file_->name(); }
  const Superblock& superblock() const { return sb_; }
  uint32_t page_size() const { return sb_.page_size; }
  uint32_t page_count() const { return sb_.page_count; }
  uint64_t generation() const { return sb_.generation; }
  uint32_t superblock_slot() const { return slot_; }
  // Why the other superblock slot is not valid, when it is not (a torn write or corruption).
  const std::optional<Error>& other_superblock() const { return other_; }
  // What the invalid slot's generation field reads, raw (SuperblockChoice::other_generation).
  std::optional<uint64_t> other_generation() const { return other_generation_; }
  // When the other slot is invalid and does not read as the generation before this one, the store
  // may have been rolled back (docs/format.md, invariant 10): what was lost, as "generation N was
  // lost" or "a newer generation may have been lost". nullopt otherwise.
  std::optional<std::string> Rollback() const;
  uint64_t file_size() const { return file_size_; }
  const Catalogue& catalogue() const { return catalogue_; }
  const std::vector<PageId>& catalogue_pages() const { return catalogue_pages_; }
  File& file() { return *file_; }
  // Hands the file over (to the writer that opened it), giving back the lease.
  std::unique_ptr<File> ReleaseFile();

  // Reads plain page `id` (at its slot) into `out` and verifies it (VerifyPage).
  // REQUIRES: out.size() == page_size().
  Status ReadPage(PageId id, std::span<std::byte> out);
  // Reads chain page `id` from where the page map says it is stored, verifies and decodes it.
  Status ReadSealed(PageId id, std::span<std::byte> out);
  // ReadPage or ReadSealed, by the key's id space.
  Status Read(PageKey key, std::span<std::byte> out) {
    return key.chain() ? ReadSealed(key.id(), out) : ReadPage(key.id(), out);
  }
  PageMapReader& page_map() { return *map_; }
  // A source of this snapshot's pages for the page cache. The store must outlive it.
  Result<std::unique_ptr<PageSource>> MakeSource(Backend backend);

 private:
  explicit Store(std::unique_ptr<File> file) : file_(std::move(file)) {}
  // Reads the newest superblock and leases its generation, reading again until the lease is on
  // the generation that is newest after it was taken.
  Status LeaseNewest();
  Status LoadCatalogue();

  std::unique_ptr<File> file_;
  Superblock sb_;
  uint32_t slot_ = 0;
  std::optional<Error> other_;
  std::optional<uint64_t> other_generation_;
  uint64_t file_size_ = 0;
  Catalogue catalogue_;
  std::vector<PageId> catalogue_pages_;
  std::unique_ptr<PageMapReader> map_;
  bool leased_ = false;
};

}  // namespace xtfq
