#!/usr/bin/env bash
# Checks that no layer includes a header of a layer above it. The allowed includes are the table of
# the `## Include matrix` section of docs/architecture.md (the only source): each row is a layer
# folder (or several, comma-separated) and the folders it may include, or `any`. Every *.h and *.cpp
# under the folders of rows that are not `any` is scanned for `#include "X/..."`; a unit test
# (*_test.cpp) follows the `tests` row. An include of a folder that is no row is not checked.
#
# Usage: scripts/check_layers.sh [ROOT]   (ROOT: a source tree, default this repository)
# Prints FILE:LINE: ... for each violation and exits 1; exits 0 when there is none, 2 when the
# matrix cannot be read.
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root" 2>/dev/null || { echo "check_layers: no directory $root" >&2; exit 2; }
doc=docs/architecture.md
if [[ ! -f $doc ]]; then
  echo "check_layers: $root/$doc is missing" >&2
  exit 2
fi

# One line per layer: "LAYER ALLOWED..." (ALLOWED is "*" for `any`), from the rows after the
# table's separator row in the Include matrix section.
matrix=$(awk '
  /^## / { in_section = ($0 ~ /^## Include matrix[ \t]*$/); next }
  !in_section || !/^\|/ { next }
  {
    split($0, cell, "|")
    gsub(/[` \t]/, "", cell[2]); gsub(/[` \t]/, "", cell[3])
    if (cell[2] ~ /^:?-+:?$/) { body = 1; next }
    if (!body) next
    allowed = cell[3]; gsub(/,/, " ", allowed)
    if (allowed == "any") allowed = "*"
    n = split(cell[2], layers, ",")
    for (i = 1; i <= n; ++i) print layers[i], allowed
  }' "$doc")
if [[ -z $matrix ]]; then
  echo "check_layers: no table in the '## Include matrix' section of $root/$doc" >&2
  exit 2
fi

folders=()
while read -r layer allowed; do
  [[ $allowed == "*" || ! -d $layer ]] || folders+=("$layer")
done <<<"$matrix"

files=()
if ((${#folders[@]})); then
  mapfile -t files < <(find "${folders[@]}" -type f \( -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort)
fi

status=0
if ((${#files[@]})); then
  # grep prints FILE:LINE:TEXT for every quoted include with a folder; awk judges each against the
  # matrix (first input) and prints the violations.
  { grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "${files[@]}" || (($? == 1)); } |
    awk -v doc="$doc" '
      FNR == NR {
        known[$1] = 1
        for (i = 2; i <= NF; ++i) allow[$1, $i] = 1
        next
      }
      {
        c1 = index($0, ":"); file = substr($0, 1, c1 - 1); rest = substr($0, c1 + 1)
        c2 = index(rest, ":"); line = substr(rest, 1, c2 - 1); text = substr(rest, c2 + 1)
        layer = substr(file, 1, index(file, "/") - 1)
        as = (file ~ /_test\.cpp$/) ? "tests" : layer
        q = index(text, "\""); header = substr(text, q + 1); header = substr(header, 1, index(header, "\"") - 1)
        target = substr(header, 1, index(header, "/") - 1)
        if (!(target in known) || allow[as, "*"] || allow[as, target]) next
        printf "%s:%s: layer '\''%s'\'' may not include '\''%s'\'' (%s, Include matrix)\n", file, line, layer, header, doc
        bad = 1
      }
      END { exit bad }' <(printf '%s\n' "$matrix") - || status=$?
fi
if ((status == 0)); then
  echo "layers: ${#files[@]} files checked, no upward include"
fi
exit "$status"
