#include "cli/darshan_input.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cli/output.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_parser_text.h"
#include "importers/darshan/darshan_text_importer.h"
#include "importers/registry/importer_registry.h"
#include "store/format.h"
#include "store/posix_file.h"
#include "store/store_writer.h"
#include "store/superblock.h"

namespace xtfq::cli {

bool DarshanInput::IsStore(const std::string& path) {
  auto f = PosixFile::Open(path, PosixFile::Mode::kRead);
  return f.ok() && LooksLikeStore(**f);
}

DarshanInput::~DarshanInput() {
  reader_.reset();
  if (!temp_.empty()) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

Result<std::unique_ptr<DarshanInput>> DarshanInput::Open(const std::string& path, std::optional<int64_t> log,
                                                         std::optional<int64_t> job) {
  std::unique_ptr<DarshanInput> in(new DarshanInput());
  std::string store = path;
  if (!IsStore(path)) {
    if (log || job) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: --log and --job select a log in a store; this is a log file", path));
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    std::string name = dir + "/xtfq-signals-XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
      return Error(ErrorCode::kIo, fmt::format("{}: cannot create a temporary store: {}", dir, std::strerror(errno)));
    ::close(fd);
    std::filesystem::remove(name);
    in->temp_ = store = name;
    DarshanImportOptions opts;
    opts.temp_dir = dir;
    StoreOptions so;  // the page size `xtfq import` gives a store of this log, so the answers read alike
    so.page_size = ImporterRegistry::PageSizeFor({"darshan"});
    XTFQ_ASSIGN_OR_RETURN(auto w, StoreWriter::CreatePath(store, so));
    XTFQ_ASSIGN_OR_RETURN(auto f, PosixFile::Open(path, PosixFile::Mode::kRead));
    std::vector<std::byte> head(256);
    XTFQ_ASSIGN_OR_RETURN(size_t got, f->ReadAt(0, head));
    head.resize(got);
    if (DarshanImporter::LooksBinary(head)) {
      XTFQ_ASSIGN_OR_RETURN(auto l, DarshanLog::Open(std::move(f)));
      XTFQ_TRY(DarshanImporter::Import(*l, *w, 0, opts));
    } else if (DarshanTextImporter::LooksLikeText(head)) {
      XTFQ_TRY(DarshanTextImporter::Import(*f, *w, 0, opts));
    } else {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: not a store, a Darshan log or darshan-parser text", path));
    }
    XTFQ_TRY(w->Commit());
  }
  XTFQ_ASSIGN_OR_RETURN(in->reader_, OpenForReading(store));
  XTFQ_ASSIGN_OR_RETURN(in->info_, DarshanLogs::Find(*in->reader_, log, job));
  return in;
}

Result<std::string> DarshanInput::Header() {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<File> src, DarshanLogs::Source(*reader_, info_));
  if (info_.source == DarshanLayout::SourceKind::kBinary) {
    XTFQ_ASSIGN_OR_RETURN(auto log, DarshanLog::Open(std::move(src)));
    return DarshanParserText::Header(*log);
  }
  // darshan-parser text: everything before the column description.
  std::string text;
  std::vector<std::byte> buf(size_t{1} << 16);
  for (uint64_t off = 0;;) {
    XTFQ_ASSIGN_OR_RETURN(size_t got, src->ReadAt(off, buf));
    if (got == 0) return text;
    text.append(reinterpret_cast<const char*>(buf.data()), got);
    off += got;
    if (const size_t end = text.find("\n\n# description of columns:"); end != std::string::npos)
      return text.substr(0, end + 1);
  }
}

}  // namespace xtfq::cli
