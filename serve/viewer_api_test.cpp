// The viewer's API and HTTP server: each endpoint's JSON equals the command line's for the same
// question; bad parameters, oversized grids, unknown paths, path traversal, a missing or wrong
// token get a 4xx with a message; over real sockets, a request the parser refuses gets a 400 and
// the server goes on serving.
#include "serve/viewer_api.h"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "serve/http_server.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::serve {
namespace {

using test::Why;

HttpRequest Get(std::string path, std::map<std::string, std::string> params) {
  return HttpRequest{"GET", std::move(path), std::move(params)};
}

// The JSON of an answer without what depends on the cache (pages read).
nlohmann::json Answer(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  if (j.contains("plan")) j["plan"].erase("pages_read");
  return j;
}

struct Fixture {
  test::TempDir dir;
  std::unique_ptr<ViewerApi> api;
  Fixture() {
    REQUIRE(test::Xtfq(dir, "gen darshan 30000 --ranks 32 --files 100 -o d.darshan").status == 0);
    REQUIRE(test::Xtfq(dir, "import d.darshan -o d.xtfq").status == 0);
    REQUIRE(test::Xtfq(dir, "gen jobstats --targets 3 --jobs 20 --samples 12 -o js").status == 0);
    REQUIRE(test::Xtfq(dir, "import js -o js.xtfq").status == 0);
    auto a = ViewerApi::Open({dir.File("d.xtfq"), dir.File("js.xtfq")}, "secret");
    REQUIRE_MESSAGE(a.ok(), Why(a));
    api = std::move(*a);
  }
};

TEST_CASE("serve: each endpoint's JSON equals the command line's") {
  Fixture f;
  const HttpResponse stores = f.api->Handle(Get("/api/stores", {{"token", "secret"}}));
  REQUIRE(stores.status == 200);
  const nlohmann::json s = nlohmann::json::parse(stores.body);
  REQUIRE(s["stores"].size() == 2);
  CHECK(s["stores"][0]["kind"] == "darshan");
  CHECK(s["stores"][0]["logs"][0]["nprocs"] == 32);
  CHECK(s["stores"][1]["kind"] == "jobstats");
  struct Same {
    std::map<std::string, std::string> params;
    std::string cli;
  };
  for (const Same& c :
       std::vector<Same>{{{{"path", "/api/grid"}, {"cols", "7"}, {"rows", "4"}, {"metric", "ops,bytes,duration.p99"}},
                          "grid d.xtfq --cols 7 --rows 4 --metric ops,bytes,duration.p99 --format json"},
                         {{{"path", "/api/grid"}, {"cols", "5"}, {"time", "10:60"}, {"ranks", "4:20"}, {"op", "write"}},
                          "grid d.xtfq --cols 5 --time 10:60 --ranks 4:20 --op write --format json"},
                         {{{"path", "/api/query"}, {"time", "0:50"}, {"ranks", "0:8"}},
                          "query d.xtfq --time 0:50 --ranks 0:8 --format json"},
                         {{{"path", "/api/query"}, {"store", "1"}, {"by", "job"}, {"op", "write_bytes"}, {"top", "3"}},
                          "query js.xtfq --jobstats --by job --op write_bytes --top 3 --format json"},
                         {{{"path", "/api/grid"}, {"store", "1"}, {"cols", "4"}, {"by", "target"}},
                          "grid js.xtfq --cols 4 --by target --format json"}}) {
    std::map<std::string, std::string> p = c.params;
    const std::string path = p["path"];
    p.erase("path");
    p["token"] = "secret";
    CAPTURE(c.cli);
    const HttpResponse r = f.api->Handle(Get(path, p));
    REQUIRE_MESSAGE(r.status == 200, r.body);
    const test::Run cli = test::Xtfq(f.dir, c.cli);
    REQUIRE_MESSAGE(cli.status == 0, cli.err);
    CHECK(Answer(r.body) == Answer(cli.out));
  }
}

TEST_CASE("serve: bad requests get a 4xx that says why") {
  Fixture f;
  struct Bad {
    std::string path;
    std::map<std::string, std::string> params;
    int status;
    const char* says;
  };
  for (const Bad& b :
       std::vector<Bad>{{"/api/stores", {}, 403, "needs its token"},
                        {"/api/stores", {{"token", "guess"}}, 403, "wrong token"},
                        {"/api/grid", {{"token", "secret"}, {"cols", "x"}}, 400, "cols=x: not an integer"},
                        {"/api/grid", {{"token", "secret"}, {"cols", "0"}}, 400, "cols=0"},
                        {"/api/grid", {{"token", "secret"}, {"cols", "100000"}, {"rows", "32"}}, 400, "more than the"},
                        {"/api/grid", {{"token", "secret"}, {"metric", "nope"}}, 400, "not a metric"},
                        {"/api/grid", {{"token", "secret"}, {"colz", "5"}}, 400, "no parameter 'colz'"},
                        {"/api/grid", {{"token", "secret"}, {"store", "7"}}, 404, "stores 0 to 1"},
                        {"/api/grid", {{"token", "secret"}, {"time", "9:3"}}, 400, "after the end"},
                        {"/api/query", {{"token", "secret"}, {"log", "5"}}, 404, "log"},
                        {"/api/nothing", {{"token", "secret"}}, 404, "no such page or API"},
                        {"/../../etc/passwd", {{"token", "secret"}}, 404, "no such page or API"},
                        {"/index.html/../../etc/passwd", {{"token", "secret"}}, 404, "no such page or API"}}) {
    CAPTURE(b.path);
    const HttpResponse r = f.api->Handle(Get(b.path, b.params));
    CHECK(r.status == b.status);
    CHECK_MESSAGE(r.body.find(b.says) != std::string::npos, r.body);
    CHECK(nlohmann::json::parse(r.body).contains("error"));
  }
  CHECK(f.api->Handle(HttpRequest{"POST", "/api/stores", {{"token", "secret"}}}).status == 405);
  // A path that is not UTF-8 (%FF decoded) is named in valid JSON, its byte replaced.
  const HttpResponse odd = f.api->Handle(Get("/\xff", {{"token", "secret"}}));
  CHECK(odd.status == 404);
  CHECK(nlohmann::json::parse(odd.body)["error"].get<std::string>().starts_with("/\xef\xbf\xbd"));
  // The app's files need no token; the page and its script are the embedded ones.
  const HttpResponse page = f.api->Handle(Get("/", {}));
  CHECK(page.status == 200);
  CHECK(page.content_type.starts_with("text/html"));
  CHECK(page.body.find("<canvas id=\"heat\"") != std::string::npos);
  CHECK(f.api->Handle(Get("/app.js", {})).content_type.starts_with("text/javascript"));
}

// A raw HTTP exchange with 127.0.0.1:port: the response's status line and body.
std::pair<std::string, std::string> Exchange(uint16_t port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET, a.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t eol = out.find("\r\n"), body = out.find("\r\n\r\n");
  return {out.substr(0, eol), body == std::string::npos ? "" : out.substr(body + 4)};
}

TEST_CASE("serve: over sockets, a request the parser refuses is a 400 and the server goes on") {
  Fixture f;
  HttpServer server;
  auto port = server.Start("127.0.0.1", 0, [&](const HttpRequest& r) { return f.api->Handle(r); });
  REQUIRE_MESSAGE(port.ok(), Why(port));
  const auto ok = Exchange(*port, "GET /api/stores?token=secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(ok.first == "HTTP/1.1 200 OK");
  CHECK(nlohmann::json::parse(ok.second)["stores"].size() == 2);
  const auto garbage = Exchange(*port, "GARBAGE\r\n\r\n");
  CHECK(garbage.first == "HTTP/1.1 400 Bad Request");
  CHECK(garbage.second.find("bad request") != std::string::npos);
  const auto huge = Exchange(*port, "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(huge.first == "HTTP/1.1 400 Bad Request");
  const auto bad_escape = Exchange(*port, "GET /api/grid?cols=%zz&token=secret HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(bad_escape.first == "HTTP/1.1 400 Bad Request");
  const auto encoded =
      Exchange(*port, "GET /api/grid?token=secret&cols=3&time=10%3A60 HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(encoded.first == "HTTP/1.1 200 OK");
  CHECK(nlohmann::json::parse(encoded.second)["cols"] == 3);
  const auto again = Exchange(*port, "GET /api/stores HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(again.first == "HTTP/1.1 403 Forbidden");
  server.Stop();
  CHECK(UrlDecode("a%2Fb+c", true) == std::optional<std::string>("a/b c"));
  CHECK(UrlDecode("a+b", false) == std::optional<std::string>("a+b"));
  CHECK(!UrlDecode("%4", true));
  CHECK(!UrlDecode("%g0", true));
}

}  // namespace
}  // namespace xtfq::serve
