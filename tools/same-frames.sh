#!/usr/bin/env bash
# Renders the example trips with two builds of maptrip and compares their frames, decoded, one by one:
# the proof that a change meant to move code (not pictures) moved no pixel.
#
#   tools/same-frames.sh REV_A [REV_B]
#
# Each REV is a commit (built in a worktree under $TMPDIR), "." for this checkout's own release
# build as it is, or the path of a maptrip binary already built. REV_B defaults to ".". Scenes: the
# world tour, the globe, LAEA Europe, the story (photos), the road trip, and the world tour over
# raster tiles (an MBTiles pyramid that the first build writes with `maptrip tiles`, read by both).
# Prints one line a scene and exits 1 if any frame differs. Needs ffmpeg's command line to decode
# (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
a=${1:?usage: tools/same-frames.sh REV_A [REV_B]}
b=${2:-.}

if ! command -v ffmpeg >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends ffmpeg
fi

work=$(mktemp -d)
trees=()
cleanup() {
  for t in "${trees[@]}"; do git -C "$root" worktree remove --force "$t" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# build REV: prints the path of that build's maptrip.
build() {
  local rev=$1
  # A maptrip binary already built (say, in another worktree): used as it is.
  if [ -f "$rev" ] && [ -x "$rev" ]; then
    realpath "$rev"
    return
  fi
  if [ "$rev" = "." ]; then
    (swift build -c release --product maptrip >&2)
    echo "$root/.build/release/maptrip"
    return
  fi
  local tree="$work/tree-$(git rev-parse --short "$rev")"
  git worktree add --detach "$tree" "$rev" >&2
  trees+=("$tree")
  (cd "$tree" && swift build -c release --product maptrip >&2)
  echo "$tree/.build/release/maptrip"
}

bin_a=$(build "$a")
bin_b=$(build "$b")

"$bin_a" tiles "$work/world.mbtiles" --max-zoom 4 -q
python3 - "$work/world.mbtiles" > "$work/tiles.json" <<'PY'
import json, sys
scene = json.load(open("Scenes/world.json"))
scene.setdefault("map", {})["tiles"] = sys.argv[1]
print(json.dumps(scene))
PY

status=0
for scene in Scenes/world.json Scenes/globe.json Scenes/europe-laea.json Scenes/story.json Scenes/road-trip.json \
             "$work/tiles.json"; do
  name=$(basename "$scene" .json)
  for side in a b; do
    bin=bin_$side
    # Rendered from the checkout (photos and sounds are found beside the scene).
    (cd "$(dirname "$scene")" && "${!bin}" render "$(basename "$scene")" -o "$work/$name-$side.mp4" -q)
    ffmpeg -v error -i "$work/$name-$side.mp4" -map 0:v -f framemd5 "$work/$name-$side.md5"
  done
  frames=$(grep -vc '^#' "$work/$name-a.md5")
  if diff -q <(grep -v '^#' "$work/$name-a.md5" | cut -d, -f6) <(grep -v '^#' "$work/$name-b.md5" | cut -d, -f6) >/dev/null; then
    echo "$name: $frames frames, all the same"
  else
    differing=$(paste -d' ' <(grep -v '^#' "$work/$name-a.md5" | cut -d, -f6) <(grep -v '^#' "$work/$name-b.md5" | cut -d, -f6) | awk '$1 != $2' | wc -l)
    echo "$name: $differing of $frames frames differ"
    status=1
  fi
done
exit $status
