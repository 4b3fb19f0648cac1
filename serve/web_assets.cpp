#include "serve/web_assets.h"

#include "serve/web_assets_data.h"

namespace xtfq::serve {

std::optional<WebAsset> WebAssets::Find(std::string_view path) {
  if (path == "/") path = "/index.html";
  for (const WebFile& f : WebFiles()) {
    if (f.path == path) return WebAsset{f.content_type, f.body};
  }
  return std::nullopt;
}

}  // namespace xtfq::serve
