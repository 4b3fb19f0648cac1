// Boost 1.74's Asio needs <utility> before its headers (std::exchange) with g++ 12.
#include <utility>
// (the order above matters)
#include <fmt/format.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <optional>
#include <thread>

#include "serve/http_server.h"

namespace xtfq::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The request's path and parameters; nullopt when its target does not decode.
std::optional<HttpRequest> Parse(const http::request<http::empty_body>& req) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const size_t q = target.find('?');
  auto path = UrlDecode(target.substr(0, q), false);
  if (!path) return std::nullopt;
  out.path = *path;
  if (q == std::string_view::npos) return out;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    auto k = UrlDecode(pair.substr(0, eq), true);
    auto v = UrlDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
    if (!k || !v) return std::nullopt;
    if (out.params.count(*k) != 0 && out.repeated.empty()) out.repeated = *k;
    out.params[*k] = *v;
  }
  return out;
}

http::response<http::string_body> Reply(const HttpResponse& r, unsigned version, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), version};
  res.set(http::field::server, "xtfq");
  res.set(http::field::content_type, r.content_type);
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

// Whether the client has closed its side (or reset) since it sent the request: a request it no
// longer waits for, such as a tile a zooming viewer cancelled.
bool PeerGone(tcp::socket& socket) {
  char c = 0;
  const ssize_t n = ::recv(socket.native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

asio::awaitable<void> Session(tcp::socket socket, const HttpServer::Handler& handler,
                              std::atomic<uint64_t>& cancelled) {
  beast::flat_buffer buffer;
  for (;;) {
    boost::system::error_code ec;
    http::request_parser<http::empty_body> parser;
    parser.header_limit(8192);
    parser.body_limit(0);
    co_await http::async_read(socket, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset) break;
    if (ec) {
      // A request the parser refuses: say why, and close.
      HttpResponse bad{400, "application/json", fmt::format("{{\"error\": \"bad request: {}\"}}\n", ec.message())};
      auto res = Reply(bad, 11, false);
      co_await http::async_write(socket, res, asio::redirect_error(asio::use_awaitable, ec));
      break;
    }
    const auto& req = parser.get();
    if (PeerGone(socket)) {
      // Cancelled while it waited for the requests before it: not answered.
      cancelled.fetch_add(1, std::memory_order_relaxed);
      break;
    }
    std::optional<HttpRequest> r = Parse(req);
    HttpResponse out =
        r ? handler(*r)
          : HttpResponse{400, "application/json", "{\"error\": \"bad request: the URL does not decode\"}\n"};
    auto res = Reply(out, req.version(), req.keep_alive());
    if (req.method() == http::verb::head) res.body().clear();
    co_await http::async_write(socket, res, asio::redirect_error(asio::use_awaitable, ec));
    if (ec || !res.keep_alive()) break;
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_send, ignored);
}

asio::awaitable<void> Accept(tcp::acceptor& acceptor, const HttpServer::Handler& handler,
                             std::atomic<uint64_t>& cancelled) {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) continue;  // a connection that failed before it was accepted
    asio::co_spawn(acceptor.get_executor(), Session(std::move(socket), handler, cancelled), asio::detached);
  }
}

}  // namespace

std::optional<std::string> UrlDecode(std::string_view s, bool query) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int a = Hex(s[i + 1]), b = Hex(s[i + 2]);
      if (a < 0 || b < 0) return std::nullopt;
      out += static_cast<char>(a * 16 + b);
      i += 2;
    } else if (query && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

struct HttpServer::Impl {
  asio::io_context io{1};
  std::optional<tcp::acceptor> acceptor;
  Handler handler;
  std::thread thread;
  std::atomic<uint64_t> cancelled{0};
};

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

Result<uint16_t> HttpServer::Start(const std::string& bind, uint16_t port, Handler handler) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(bind, ec);
  if (ec) return Error(ErrorCode::kUsage, fmt::format("--bind {}: not an IP address", bind));
  impl_->handler = std::move(handler);
  tcp::acceptor& a = impl_->acceptor.emplace(impl_->io);
  const tcp::endpoint ep(address, port);
  a.open(ep.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(ep, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    impl_->acceptor.reset();
    return Error(ErrorCode::kIo, fmt::format("cannot listen on {}:{}: {}", bind, port, ec.message()));
  }
  const uint16_t bound = a.local_endpoint().port();
  asio::co_spawn(impl_->io, Accept(a, impl_->handler, impl_->cancelled), asio::detached);
  impl_->thread = std::thread([this] { impl_->io.run(); });
  return bound;
}

uint64_t HttpServer::cancelled() const { return impl_->cancelled.load(std::memory_order_relaxed); }

void HttpServer::Stop() {
  if (!impl_) return;
  asio::post(impl_->io, [this] {
    boost::system::error_code ignored;
    if (impl_->acceptor) impl_->acceptor->close(ignored);
  });
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace xtfq::serve
