#include "importers/darshan/darshan_heatmap_reader.h"

#include <fmt/format.h>

namespace xtfq {

DarshanHeatmapReader::DarshanHeatmapReader(DarshanLog& log) : log_(log), reader_(log.ModuleReader(kSlot)) {}

Result<bool> DarshanHeatmapReader::Next(HeatmapRecord& out) {
  std::byte head[48];
  XTFQ_ASSIGN_OR_RETURN(size_t got, reader_->Read(head));
  if (got == 0) return false;
  if (got < sizeof head)
    return reader_->Fail(fmt::format("the region ends {} bytes into a record header of 48 bytes", got));
  out.id = log_.U64(head);
  out.rank = static_cast<int64_t>(log_.U64(head + 8));
  out.width = log_.F64(head + 16);
  const auto nbins = static_cast<int64_t>(log_.U64(head + 24));
  if (nbins < 0 || nbins > (int64_t{1} << 24)) return reader_->Fail(fmt::format("a heatmap record of {} bins", nbins));
  XTFQ_TRY(reader_->ReadGrowing(raw_, static_cast<size_t>(nbins) * 16, "the heatmap bins"));
  int64_t shown = nbins;
  if (!have_first_) {
    have_first_ = true, first_width_ = out.width, first_bins_ = nbins;
  } else if (out.width == first_width_ && nbins == first_bins_ + 1) {
    shown = nbins - 1;
  } else if (out.width == first_width_ && nbins + 1 == first_bins_) {
    shown = nbins + 1;
  }
  auto bin = [&](bool read, int64_t i) -> int64_t {
    if (i >= nbins) return 0;
    return static_cast<int64_t>(log_.U64(raw_.data() + 8 * static_cast<size_t>((read ? nbins : 0) + i)));
  };
  out.read.resize(static_cast<size_t>(shown));
  out.write.resize(static_cast<size_t>(shown));
  for (int64_t i = 0; i < shown; ++i) {
    out.read[static_cast<size_t>(i)] = bin(true, i);
    out.write[static_cast<size_t>(i)] = bin(false, i);
  }
  return true;
}

}  // namespace xtfq
