#include "query/darshan/darshan_op_metrics.h"

namespace xtfq {

namespace {
std::optional<double> Div(double a, double b) { return b != 0 ? std::optional<double>(a / b) : std::nullopt; }
}  // namespace

DarshanOpMetrics DarshanOpMetrics::Of(const DarshanOpStats& s) {
  const double ops = static_cast<double>(s.ops);
  return {Div(static_cast<double>(s.bytes) / 1048576.0, s.busy),
          Div(ops, s.busy),
          Div(static_cast<double>(s.bytes), ops),
          s.seq_known ? Div(static_cast<double>(s.seq), ops) : std::nullopt,
          s.consec_known ? Div(static_cast<double>(s.consec), ops) : std::nullopt,
          s.size_classes_known
              ? Div(static_cast<double>(s.size_classes[0] + s.size_classes[1] + s.size_classes[2]), ops)
              : std::nullopt};
}

}  // namespace xtfq
