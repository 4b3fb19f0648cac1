// HttpRequest and HttpResponse: what the viewer's HTTP server (serve/http_server.h) hands to its
// handler and sends back, as plain values (no Beast type crosses this header, so the handler and
// its tests compile without Beast).
//
// Thread-safety: value types.
#pragma once

#include <map>
#include <string>

namespace xtfq::serve {

struct HttpRequest {
  std::string method;                         // "GET", "HEAD", ...
  std::string path;                           // the target's path, percent-decoded ("/api/grid")
  std::map<std::string, std::string> params;  // the query string's, percent-decoded (the last of repeats)
  std::string repeated;                       // a parameter given more than once (the first such), else ""
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

}  // namespace xtfq::serve
