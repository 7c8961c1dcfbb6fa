#!/usr/bin/env bash
# Makes the README's pictures (Assets/readme/*.jpg) as decoded frames of `maptrip render` outputs:
# each example scene is rendered to an H.264 MP4 exactly as a user renders it, and one frame of that
# file is decoded and written as a JPEG. A picture can so never show what the render does not.
# Needs a release build (bash .ci/setup) and ffmpeg's command line (installed here if missing) to
# pull the frame out: maptrip itself never uses it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v ffmpeg >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends ffmpeg
fi
# MAPTRIP: another build of maptrip (a debug build draws the same pictures, slower).
maptrip=${MAPTRIP:-.build/release/maptrip}
[ -x "$maptrip" ] || swift build -c release --product maptrip
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# picture: scene, second of the trip, width of the render (the view is the scene's).
picture() {
  local name=$1 scene=$2 at=$3 width=$4
  "$maptrip" render "$scene" -o "$work/$name.mp4" --width "$width" -q
  # The frame shown at that second (frame n covers [n/fps, (n+1)/fps)), decoded from the MP4.
  local fps
  fps=$("$maptrip" info "$work/$name.mp4" --json | python3 -c 'import json,sys; n,d=json.load(sys.stdin)[0]["videoStreams"][0]["frameRate"].split("/"); print(int(n)/int(d))')
  local n
  n=$(python3 -c "print(round($at * $fps))")
  ffmpeg -v error -y -i "$work/$name.mp4" -vf "select=eq(n\,$n)" -frames:v 1 -q:v 3 "Assets/readme/$name.jpg"
  echo "Assets/readme/$name.jpg: $scene at ${at}s (frame $n), ${width}px wide"
}

picture korea Scenes/korea.json 12.0 960
picture pacific Scenes/pacific.json 10.0 960
picture road-trip Scenes/road-trip.json 9.5 960
picture story Scenes/story.json 6.5 406
picture globe Scenes/globe.json 22.0 960
picture europe-laea Scenes/europe-laea.json 10.3 960
picture clips Scenes/clips.json 16.5 960
picture helsinki Scenes/helsinki.json 7.5 960
picture ride Scenes/ride.json 8.0 960
picture chase Scenes/chase.json 10.0 960
picture ride-readouts Scenes/ride-readouts.json 7.0 960
picture europe Scenes/europe.json 3.8 960
picture world Scenes/world.json 7.5 960
picture relief Scenes/relief.json 6.0 960
picture satellite Scenes/satellite.json 6.0 960
picture race Scenes/race.json 12.0 960
picture story-social Scenes/story-social.json 6.5 406
picture voices Scenes/voices.json 8.0 960
picture looks Scenes/looks.json 8.0 960

# Offline tiles made by `maptrip tiles`, then the Korea trip drawn on them.
"$maptrip" tiles "$work/korea.mbtiles" --min-zoom 0 --max-zoom 9 --bounds 124,32,131,39.5 -q
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
scene = json.load(open("Scenes/korea.json"))
scene.pop("$schema", None)
scene["map"] = {"tiles": work + "/korea.mbtiles", "attribution": "Natural Earth"}
json.dump(scene, open(work + "/korea-tiles.json", "w"))
EOF
picture tiles "$work/korea-tiles.json" 12.0 960
