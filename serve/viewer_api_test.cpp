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

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

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
  // What each module can draw: the generated log has DXT of POSIX and MPI-IO, STDIO counters.
  CHECK(s["stores"][0]["logs"][0]["draw"] ==
        nlohmann::json{{"POSIX", "DXT"}, {"MPI-IO", "DXT"}, {"STDIO", "counters"}});
  CHECK(s["stores"][1]["kind"] == "jobstats");
  CHECK(s["stores"][1]["targets"].size() == 3);
  CHECK(s["stores"][1]["collections"] == 36);
  CHECK(!s["stores"][1]["ops"].empty());
  const HttpResponse top =
      f.api->Handle(Get("/api/query", {{"token", "secret"}, {"store", "1"}, {"top", "1"}, {"op", "write_bytes"}}));
  REQUIRE(top.status == 200);
  const std::string top_job = nlohmann::json::parse(top.body)["groups"][0]["job"];
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
                          "grid js.xtfq --cols 4 --by target --format json"},
                         {{{"path", "/api/grid"}, {"store", "1"}, {"cols", "6"}, {"by", "target"}, {"job", "%s"}},
                          "grid js.xtfq --cols 6 --by target --job %s --format json"},
                         {{{"path", "/api/query"}, {"store", "1"}, {"by", "class"}, {"op", "write_bytes"}},
                          "query js.xtfq --jobstats --by class --op write_bytes --format json"},
                         {{{"path", "/api/query"}, {"store", "1"}, {"by", "uid"}, {"job", "%s"}},
                          "query js.xtfq --jobstats --by uid --job %s --format json"},
                         {{{"path", "/api/heatmap"}, {"store", "1"}, {"op", "write_bytes"}, {"cell", "60"}},
                          "heatmap js.xtfq --jobstats --op write_bytes --cell 60 --format json"},
                         {{{"path", "/api/heatmap"}, {"store", "1"}, {"op", "write_bytes"}, {"job", "%s"}},
                          "heatmap js.xtfq --jobstats --op write_bytes --job %s --format json"},
                         {{{"path", "/api/query"}, {"time", "20%:70%"}, {"per_file", "1"}, {"top", "4"}},
                          "query d.xtfq --time 20%:70% --per-file --top 4 --format json"},
                         {{{"path", "/api/segments"},
                           {"time", "40%:60%"},
                           {"ranks", "3:9"},
                           {"limit", "25"},
                           {"offset", "10"},
                           {"op", "write"}},
                          "segments d.xtfq --time 40%:60% --ranks 3:9 --limit 25 --offset 10 --op write --format "
                          "json"}}) {
    std::map<std::string, std::string> p = c.params;
    const std::string path = p["path"];
    p.erase("path");
    p["token"] = "secret";
    // %s: the job that wrote the most (job_stats answers filtered by a job, as a click asks)
    std::string cli_line = c.cli;
    if (p.contains("job") && p["job"] == "%s") p["job"] = top_job;
    if (auto at = cli_line.find("%s"); at != std::string::npos) cli_line.replace(at, 2, top_job);
    CAPTURE(cli_line);
    const HttpResponse r = f.api->Handle(Get(path, p));
    REQUIRE_MESSAGE(r.status == 200, r.body);
    const test::Run cli = test::Xtfq(f.dir, cli_line);
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
                        {"/api/query", {{"token", "secret"}, {"top", "5"}}, 400, "give per_file=1"},
                        {"/api/segments", {{"token", "secret"}, {"limit", "2000"}}, 400, "give 1 to 1000"},
                        {"/api/segments", {{"token", "secret"}, {"offset", "-1"}}, 400, "offset=-1"},
                        {"/api/segments", {{"token", "secret"}, {"offset", "99999"}}, 400, "narrow the window"},
                        {"/api/segments", {{"token", "secret"}, {"store", "1"}}, 404, "no Darshan log"},
                        {"/api/heatmap", {{"token", "secret"}}, 400, "holds no job_stats"},
                        {"/api/heatmap", {{"token", "secret"}, {"store", "1"}, {"base", "1"}}, 400, "base=1"},
                        {"/api/heatmap", {{"token", "secret"}, {"store", "1"}, {"cell", "0"}}, 400, "cell=0"},
                        {"/api/stores",
                         {{"token", "secret"}, {"extra", "1"}},
                         400,
                         "/api/stores: no parameter 'extra' (it takes none)"},
                        {"/api/query", {{"token", "secret"}, {"store", "1"}, {"top", "0"}}, 400, "top=0: give 1 to"},
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
  // A parameter given twice is refused rather than one of them taken.
  const auto twice =
      Exchange(*port, "GET /api/grid?token=secret&store=0&store=1 HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(twice.first == "HTTP/1.1 400 Bad Request");
  CHECK_MESSAGE(twice.second.find("/api/grid: parameter 'store' given more than once") != std::string::npos,
                twice.second);
  const auto again = Exchange(*port, "GET /api/stores HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(again.first == "HTTP/1.1 403 Forbidden");
  server.Stop();
  CHECK(UrlDecode("a%2Fb+c", true) == std::optional<std::string>("a/b c"));
  CHECK(UrlDecode("a+b", false) == std::optional<std::string>("a+b"));
  CHECK(!UrlDecode("%4", true));
  CHECK(!UrlDecode("%g0", true));
}

TEST_CASE("serve: a request whose client has gone when its turn comes is not answered") {
  std::atomic<bool> started{false}, release{false};
  std::atomic<int> others{0};
  HttpServer server;
  auto port = server.Start("127.0.0.1", 0, [&](const HttpRequest& r) {
    if (r.path == "/slow") {
      // Holds the server's one thread until the test has sent and abandoned its second request.
      started = true;
      for (int i = 0; i < 500 && !release; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } else {
      ++others;
    }
    return HttpResponse{200, "text/plain", "ok"};
  });
  REQUIRE_MESSAGE(port.ok(), Why(port));
  std::thread slow(
      [&] { CHECK(Exchange(*port, "GET /slow HTTP/1.1\r\nConnection: close\r\n\r\n").first == "HTTP/1.1 200 OK"); });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // A tile asked and cancelled (the browser closes the connection) while /slow is being answered.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET, a.sin_port = htons(*port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string stale = "GET /stale HTTP/1.1\r\nHost: x\r\n\r\n";
  REQUIRE(write(fd, stale.data(), stale.size()) == static_cast<ssize_t>(stale.size()));
  close(fd);
  release = true;
  slow.join();
  // The next client is answered, and only it reached the handler.
  CHECK(Exchange(*port, "GET /next HTTP/1.1\r\nConnection: close\r\n\r\n").first == "HTTP/1.1 200 OK");
  CHECK(others == 1);
  CHECK(server.cancelled() == 1);
  server.Stop();
}

TEST_CASE("serve: a Slurm store is listed with its jobs, and /api/query answers as query --slurm does") {
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen slurm -o g --job 300 --start 1800000000 --nodes 2 --tasks 2 --samples 20").status == 0);
  REQUIRE(test::Xtfq(dir, "import -q g -o s.xtfq").status == 0);
  auto a = ViewerApi::Open({dir.File("s.xtfq")}, "secret");
  REQUIRE_MESSAGE(a.ok(), Why(a));
  const HttpResponse stores = (*a)->Handle(Get("/api/stores", {{"token", "secret"}}));
  REQUIRE(stores.status == 200);
  const nlohmann::json s = nlohmann::json::parse(stores.body)["stores"][0];
  CHECK(s["kind"] == "slurm");
  REQUIRE(s["jobs"].size() == 1);
  CHECK(s["jobs"][0]["job"] == 300);
  const HttpResponse q = (*a)->Handle(
      Get("/api/query",
          {{"token", "secret"}, {"by", "node,task"}, {"kind", "tasks,fs"}, {"time", "10%:60%"}, {"job", "300"}}));
  REQUIRE_MESSAGE(q.status == 200, q.body);
  const test::Run cli =
      test::Xtfq(dir, "query s.xtfq --by node,task --kind tasks,fs --time 10%:60% --job 300 --format json");
  REQUIRE_MESSAGE(cli.status == 0, cli.err);
  CHECK(nlohmann::json::parse(q.body) == nlohmann::json::parse(cli.out));
  CHECK((*a)->Handle(Get("/api/query", {{"token", "secret"}, {"task", "x"}})).status == 400);
  // A job id the command line refuses is a 400 here too, not a search for it.
  const HttpResponse huge = (*a)->Handle(Get("/api/query", {{"token", "secret"}, {"job", "99999999999999999999999"}}));
  CHECK(huge.status == 400);
  CHECK_MESSAGE(huge.body.find("give job ids (whole numbers from 0 to 2^62)") != std::string::npos, huge.body);
  CHECK((*a)->Handle(Get("/api/query", {{"token", "secret"}, {"ranks", "0:2"}})).status == 400);
}

TEST_CASE("serve: an events store is listed with its arrays, and /api/query answers as query does") {
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen events 20000 --ranks 16 -o e.bin").status == 0);
  REQUIRE(test::Xtfq(dir, "import -q e.bin -o e.xtfq").status == 0);
  auto a = ViewerApi::Open({dir.File("e.xtfq")}, "secret");
  REQUIRE_MESSAGE(a.ok(), Why(a));
  const HttpResponse stores = (*a)->Handle(Get("/api/stores", {{"token", "secret"}}));
  REQUIRE(stores.status == 200);
  const nlohmann::json s = nlohmann::json::parse(stores.body)["stores"][0];
  CHECK(s["kind"] == "arrays");
  CHECK(s["arrays"] == nlohmann::json::array({"events"}));
  struct Case {
    std::map<std::string, std::string> params;
    std::string flags;
  };
  for (const Case& c : {Case{{{"time", "20%:70%"}, {"ranks", "2:9"}}, "--time 20%:70% --ranks 2:9"},
                        Case{{{"time", "10%:90%"}, {"buckets", "7"}}, "--time 10%:90% --buckets 7"}, Case{{}, ""}}) {
    CAPTURE(c.flags);
    std::map<std::string, std::string> params = c.params;
    params["token"] = "secret";
    const HttpResponse q = (*a)->Handle(Get("/api/query", params));
    REQUIRE_MESSAGE(q.status == 200, q.body);
    const test::Run cli = test::Xtfq(dir, "query e.xtfq --format json " + c.flags);
    REQUIRE_MESSAGE(cli.status == 0, cli.err);
    CHECK(nlohmann::json::parse(q.body) == nlohmann::json::parse(cli.out));
  }
  // As the command line refuses them: buckets over an open window, a flag of another kind, too many buckets.
  const HttpResponse open = (*a)->Handle(Get("/api/query", {{"token", "secret"}, {"buckets", "4"}}));
  CHECK(open.status == 400);
  CHECK_MESSAGE(open.body.find("needs a bounded") != std::string::npos, open.body);
  CHECK((*a)->Handle(Get("/api/query", {{"token", "secret"}, {"per_file", "1"}})).status == 400);
  CHECK((*a)->Handle(Get("/api/query", {{"token", "secret"}, {"time", "0:9"}, {"buckets", "99999999"}})).status == 400);
  CHECK((*a)->Handle(Get("/api/query", {{"token", "secret"}, {"array", "nope"}})).status == 404);
}

}  // namespace
}  // namespace xtfq::serve
