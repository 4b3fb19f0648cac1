// Store: one committed snapshot of a store file, opened read-only.
//
// Open() takes the newest valid superblock, checks that the file holds all its pages, reads the
// catalogue pages (each verified) and decodes and validates the catalogue. After that the
// snapshot is immutable: record pages are read through a PageSource (MakeSource) and the page
// cache above it. A writer committing later does not change this snapshot's catalogue; reopen to
// see the new generation.
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
#include "store/page_source.h"
#include "store/superblock.h"

namespace xtfq {

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(std::unique_ptr<File> file);
  // Opens the file at `path` read-only.
  static Result<std::unique_ptr<Store>> OpenPath(const std::string& path);

  const std::string& name() const { return file_->name(); }
  const Superblock& superblock() const { return sb_; }
  uint32_t page_size() const { return sb_.page_size; }
  uint32_t page_count() const { return sb_.page_count; }
  uint64_t generation() const { return sb_.generation; }
  uint32_t superblock_slot() const { return slot_; }
  // Why the other superblock slot is not valid, when it is not (a torn write or corruption).
  const std::optional<Error>& other_superblock() const { return other_; }
  uint64_t file_size() const { return file_size_; }
  const Catalogue& catalogue() const { return catalogue_; }
  const std::vector<PageId>& catalogue_pages() const { return catalogue_pages_; }
  File& file() { return *file_; }
  std::unique_ptr<File> ReleaseFile() { return std::move(file_); }

  // Reads page `id` into `out` and verifies it (VerifyPage). REQUIRES: out.size() == page_size().
  Status ReadPage(PageId id, std::span<std::byte> out);
  // A source of this snapshot's pages for the page cache. The store must outlive it.
  Result<std::unique_ptr<PageSource>> MakeSource(Backend backend);

 private:
  explicit Store(std::unique_ptr<File> file) : file_(std::move(file)) {}
  Status LoadCatalogue();

  std::unique_ptr<File> file_;
  Superblock sb_;
  uint32_t slot_ = 0;
  std::optional<Error> other_;
  uint64_t file_size_ = 0;
  Catalogue catalogue_;
  std::vector<PageId> catalogue_pages_;
};

}  // namespace xtfq
