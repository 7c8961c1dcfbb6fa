#!/bin/sh
# Writes MapLibre's expression fixtures into Tests/MapTripStyleTests/Fixtures/ for MapTripStyleTests'
# conformance test (CI has no network: the fixtures are committed).
#
#     tools/style-fixtures.sh GIT_DIR
#
# GIT_DIR is a bare git directory of github.com/maplibre/maplibre-style-spec (for example what the
# session's `fetch github:maplibre/maplibre-style-spec` gives). Writes:
#   expression-fixtures.json  {"commit": ..., "fixtures": {"<group>/<name>": <test.json>, ...}}, compact
#   LICENSE-maplibre-style-spec.txt  the spec's licence
#   README.md                 its line saying where the file came from (the commit)
# Needs git and jq.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 MAPLIBRE_STYLE_SPEC_GIT_DIR" >&2; exit 2; }
src=$1
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/Tests/MapTripStyleTests/Fixtures
commit=$(git --git-dir="$src" rev-parse HEAD)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git --git-dir="$src" archive "$commit" test/integration/expression/tests LICENSE.txt | tar -x -C "$tmp"
mkdir -p "$out"
base=$tmp/test/integration/expression/tests
# Sorted by name, so the same commit gives the same bytes.
(cd "$base" && find . -name test.json | sed 's|^\./||' | LC_ALL=C sort) > "$tmp/list"
(cd "$base" && xargs jq -c '{(input_filename | sub("/test.json$"; "")): .}' < "$tmp/list") |
    jq -c -s --arg commit "$commit" '{commit: $commit, fixtures: add}' > "$out/expression-fixtures.json"
cp "$tmp/LICENSE.txt" "$out/LICENSE-maplibre-style-spec.txt"
count=$(jq '.fixtures | length' "$out/expression-fixtures.json")
# README.md: this file's line (one line, replaced in place; the other lines are left as they are).
line="- \`expression-fixtures.json\`: the $count expression fixtures (\`test/integration/expression/tests/*/test.json\`) of [maplibre-style-spec](https://github.com/maplibre/maplibre-style-spec) at commit $commit, in one compact file written by \`tools/style-fixtures.sh\`; licence: \`LICENSE-maplibre-style-spec.txt\`."
readme=$out/README.md
[ -f "$readme" ] || printf '# Style test fixtures\n\n' > "$readme"
if grep -q '^- `expression-fixtures.json`' "$readme"; then
    awk -v line="$line" '/^- `expression-fixtures.json`/ { print line; next } { print }' "$readme" > "$tmp/readme"
else
    cat "$readme" > "$tmp/readme"
    echo "$line" >> "$tmp/readme"
fi
cp "$tmp/readme" "$readme"
echo "wrote $count fixtures from $commit to $out"
