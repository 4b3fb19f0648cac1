#!/usr/bin/env bash
# Checks that every *.h and *.cpp of the source folders is formatted as the repository's
# .clang-format says (clang-format-14, falling back to clang-format). Changes nothing: it lists the
# files that differ and exits 1 if there are any; `clang-format-14 -i FILE...` fixes them.
#
# Usage: scripts/check_format.sh [ROOT]   (ROOT: a source tree, default this repository)
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root" 2>/dev/null || { echo "check_format: no directory $root" >&2; exit 2; }
if [[ ! -f .clang-format ]]; then
  echo "check_format: $root/.clang-format is missing" >&2
  exit 2
fi
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z $cf ]]; then
  echo "check_format: neither clang-format-14 nor clang-format is installed (scripts/setup.sh)" >&2
  exit 2
fi

folders=()
for d in store layouts cache index query importers gen cli serve tests bench; do
  [[ -d $d ]] && folders+=("$d")
done
files=()
if ((${#folders[@]})); then
  mapfile -t files < <(find "${folders[@]}" -type f \( -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort)
fi
if ((${#files[@]} == 0)); then
  echo "format: no files to check"
  exit 0
fi

# --dry-run -Werror reports each difference as "FILE:LINE:COL: error: code should be
# clang-formatted"; the files named there are the ones that differ.
report=$(printf '%s\0' "${files[@]}" | xargs -0 "$cf" --style=file --dry-run -Werror 2>&1 >/dev/null) && rc=0 || rc=$?
mapfile -t bad < <(printf '%s\n' "$report" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  LC_ALL=C sort -u)
if ((rc != 0 && ${#bad[@]} == 0)); then
  # clang-format failed for another reason (an unreadable file, a bad .clang-format): show it.
  printf '%s\n' "$report" >&2
  echo "check_format: $cf failed (exit $rc)" >&2
  exit 2
fi
if ((${#bad[@]})); then
  printf '%s\n' "${bad[@]}"
  echo "format: ${#bad[@]} of ${#files[@]} files differ from .clang-format ($(basename "$cf") --dry-run -Werror);" \
    "fix with: $(basename "$cf") -i FILE..."
  exit 1
fi
echo "format: ${#files[@]} files checked, all formatted ($(basename "$cf"))"
