// HttpServer: the viewer's HTTP/1.1 server (Boost.Beast over Asio C++20 coroutines, in this one
// translation unit: docs/viewer.md). One I/O thread accepts connections and reads requests; each
// request is handed, parsed into an HttpRequest, to the handler, and its HttpResponse written back
// on the same keep-alive connection. A request the parser refuses (a bad request line, headers
// over 8 KiB, a body) gets a 400 with a message and the connection is closed; the server goes on.
// A request whose client has closed the connection by the time its turn comes (a viewer cancels
// the tiles a zoom made stale) is not answered: the handler is not called.
//
// Thread-safety: Start and Stop from one thread; the handler runs on the server's thread, one
// request at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "serve/http_message.h"
#include "store/result.h"

namespace xtfq::serve {

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  HttpServer();
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on bind:port (port 0: any free port) and serves on a thread of its own; returns the
  // port. kIo names the address when it cannot listen.
  Result<uint16_t> Start(const std::string& bind, uint16_t port, Handler handler);
  // Stops accepting and serving, and joins the thread.
  void Stop();
  // Requests dropped because their client had gone.
  uint64_t cancelled() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Percent-decodes a URL component ('+' as a space in a query string); nullopt when malformed.
std::optional<std::string> UrlDecode(std::string_view s, bool query);

}  // namespace xtfq::serve
