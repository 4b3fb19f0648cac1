// WebAssets: the viewer's files (serve/web/), embedded in the binary at build time (CMake writes
// their bytes into a generated source), so neither the build nor a run needs a network.
//
// Thread-safety: pure functions over constant data.
#pragma once

#include <optional>
#include <string_view>

namespace xtfq::serve {

struct WebAsset {
  std::string_view content_type;
  std::string_view body;
};

class WebAssets {
 public:
  // The file at a URL path ("/" is "/index.html"); nullopt for any other path.
  static std::optional<WebAsset> Find(std::string_view path);
};

}  // namespace xtfq::serve
