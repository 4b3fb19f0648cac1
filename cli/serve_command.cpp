#include "cli/serve_command.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <random>

#include "cli/output.h"
#include "serve/http_server.h"
#include "serve/viewer_api.h"

namespace xtfq::cli {

namespace {

// 128 random bits as hex, from the kernel's generator.
std::string Token() {
  std::random_device rd;
  std::string out;
  for (int i = 0; i < 4; ++i) out += fmt::format("{:08x}", rd());
  return out;
}

}  // namespace

CLI::App* ServeCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("serve", "Serve the zoomable viewer and its JSON API for stores");
  app->add_option("STORE", stores_, "store files")->required();
  app->add_option("--port", port_, "TCP port (0: any free one)")->check(CLI::Range(0u, 65535u));
  app->add_option("--bind", bind_, "address to listen on (default 127.0.0.1: this machine only)");
  app->add_flag("--no-token", no_token_,
                "serve without the URL token (anyone who reaches the port reads the stores; other users of a "
                "login node reach 127.0.0.1)");
  return app;
}

int ServeCommand::Run() {
  const std::string token = no_token_ ? "" : Token();
  // Each store once through the reading commands' open, which says so when it reads an older generation.
  for (const std::string& s : stores_) {
    if (auto r = OpenForReading(s); !r.ok()) return Fail("serve", r.error());
  }
  auto api = serve::ViewerApi::Open(stores_, token);
  if (!api.ok()) return Fail("serve", api.error());
  serve::HttpServer server;
  auto port =
      server.Start(bind_, static_cast<uint16_t>(port_), [&](const serve::HttpRequest& r) { return (*api)->Handle(r); });
  if (!port.ok()) return Fail("serve", port.error());
  const std::string host = bind_.find(':') != std::string::npos ? "[" + bind_ + "]" : bind_;
  fmt::print("xtfq serve: {} store{} on http://{}:{}/{}\n", stores_.size(), stores_.size() == 1 ? "" : "s", host, *port,
             token.empty() ? "" : "?token=" + token);
  std::fflush(stdout);
  // Until SIGINT or SIGTERM.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  int sig = 0;
  sigwait(&set, &sig);
  server.Stop();
  fmt::print(stderr, "xtfq serve: stopped ({})\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  return kExitOk;
}

}  // namespace xtfq::cli
