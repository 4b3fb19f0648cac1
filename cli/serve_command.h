// ServeCommand: `xtfq serve STORE... [--port P] [--bind ADDR] [--no-token]`: the zoomable viewer
// and its JSON API (serve/viewer_api.h, docs/viewer.md), on 127.0.0.1 by default, behind a random
// token printed in the URL at start; runs until interrupted (SIGINT, SIGTERM).
//
// Thread-safety: as Command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/command.h"

namespace xtfq::cli {

class ServeCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::vector<std::string> stores_;
  std::string bind_ = "127.0.0.1";
  uint32_t port_ = 8765;  // checked to 0..65535
  bool no_token_ = false;
};

}  // namespace xtfq::cli
