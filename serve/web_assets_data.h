// WebFile: one embedded file of the viewer (serve/web/), as the build wrote it
// (generated/web_assets_data.cpp); serve/web_assets.h finds them by URL path.
//
// Thread-safety: constant data.
#pragma once

#include <string_view>
#include <vector>

namespace xtfq::serve {

struct WebFile {
  std::string_view path;  // "/index.html"
  std::string_view content_type;
  std::string_view body;
};

const std::vector<WebFile>& WebFiles();

}  // namespace xtfq::serve
