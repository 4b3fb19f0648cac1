#!/usr/bin/env bash
# Checks that no layer includes a header of a layer above it, and that no room of a layer includes
# another room it may not (a kind another kind, a room the floor above it). The allowed includes are
# the table of the `## Include matrix` section of docs/architecture.md (the only source): each row
# is a folder (or several, comma-separated) and the folders it may include, or `any`. A row's
# folder may be a sub-folder (`query/darshan`, a room of the query layer): a file belongs to the
# row with the longest folder its path starts with, and a folder it may include allows every
# header under it (`query` allows `query/core/...` and `query/darshan/...`). Every *.h and *.cpp
# under the folders of rows that are not `any` (and under the top folders of their rooms) is
# scanned for `#include "X/..."`; a unit test (*_test.cpp) follows the `tests` row. A file in no
# row's folder (one left beside the rooms, or a room the matrix lacks) is reported too. An include
# whose first folder is the first folder of no row is not checked.
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

# One line per row folder: "FOLDER ALLOWED..." (ALLOWED is "*" for `any`), from the rows after the
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

# The folders of the rows that are checked, and the top folder of each room (query for
# query/darshan), so that a file beside the rooms is found.
folders=()
while read -r layer allowed; do
  [[ $allowed == "*" || ! -d $layer ]] || folders+=("$layer" "${layer%%/*}")
done <<<"$matrix"

files=()
if ((${#folders[@]})); then
  mapfile -t files < <(find "${folders[@]}" -type f \( -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort -u)
fi

status=0
if ((${#files[@]})); then
  # awk reads the matrix, then the files (each must be in a row's folder), then grep's FILE:LINE:TEXT
  # for every quoted include with a folder, and prints the violations.
  { grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "${files[@]}" || (($? == 1)); } |
    awk -v doc="$doc" '
      # The row of PATH: the longest row folder PATH is under ("" when none).
      function row(path,   k, best) {
        best = ""
        for (k in known) if (index(path, k "/") == 1 && length(k) > length(best)) best = k
        return best
      }
      FILENAME == ARGV[1] {
        known[$1] = 1
        top = $1; sub(/\/.*/, "", top); tops[top] = 1
        for (i = 2; i <= NF; ++i) allow[$1, $i] = 1
        next
      }
      FILENAME == ARGV[2] {
        if (row($0) == "") {
          printf "%s: no row holds its folder (%s, Include matrix)\n", $0, doc
          bad = 1
        }
        next
      }
      {
        c1 = index($0, ":"); file = substr($0, 1, c1 - 1); rest = substr($0, c1 + 1)
        c2 = index(rest, ":"); line = substr(rest, 1, c2 - 1); text = substr(rest, c2 + 1)
        layer = row(file)
        if (layer == "") next  # reported above
        as = (file ~ /_test\.cpp$/) ? "tests" : layer
        q = index(text, "\""); header = substr(text, q + 1); header = substr(header, 1, index(header, "\"") - 1)
        top = substr(header, 1, index(header, "/") - 1)
        if (!(top in tops) || allow[as, "*"]) next
        # Allowed when a folder the row names holds the header: its folder or one above it.
        ok = 0
        for (dir = header; !ok && sub(/\/[^\/]*$/, "", dir);) ok = allow[as, dir]
        if (ok) next
        printf "%s:%s: layer '\''%s'\'' may not include '\''%s'\'' (%s, Include matrix)\n", file, line, layer, header, doc
        bad = 1
      }
      END { exit bad }' <(printf '%s\n' "$matrix") <(printf '%s\n' "${files[@]}") - || status=$?
fi
if ((status == 0)); then
  echo "layers: ${#files[@]} files checked, no upward include"
fi
exit "$status"
