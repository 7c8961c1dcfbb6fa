#!/bin/sh
# Makes the example voices and music of Scenes/voices.json (Scenes/media/*.m4a, committed):
# espeak-ng (Debian package espeak-ng) speaks each place's line, ffmpeg encodes it as mono AAC;
# the music is a soft chord of sines, faded in and out so that it loops without a click.
# Usage: tools/voices.sh (from the repository's root). Deterministic for a given espeak-ng and ffmpeg.
set -eu
command -v espeak-ng >/dev/null || { echo "tools/voices.sh: install espeak-ng (apt-get install espeak-ng)" >&2; exit 1; }
out=Scenes/media
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
speak() {  # name, text
    espeak-ng -v en-gb -s 150 -p 45 -w "$tmp/$1.wav" "$2"
    ffmpeg -v error -y -i "$tmp/$1.wav" -af "highpass=f=80,loudnorm=I=-18:TP=-2" -ar 48000 -ac 1 \
        -c:a aac -b:a 40k -map_metadata -1 -fflags +bitexact -flags:a +bitexact "$out/voice-$1.m4a"
}
speak seoul "Seoul. We start in the capital, by the Han river."
speak gyeongju "Gyeongju, the old capital of Silla, full of royal tombs."
speak busan "Busan. The harbour, the fish market, and the beaches."
speak jeju "And Jeju, the volcanic island at the end of the trip."
# 16 s of an A minor chord (220, 261.6, 329.6 Hz) with a slow tremolo, looped by the scene.
ffmpeg -v error -y -f lavfi -i "aevalsrc='0.12*sin(2*PI*220*t)+0.09*sin(2*PI*261.63*t)+0.08*sin(2*PI*329.63*t)*(0.8+0.2*sin(2*PI*0.25*t))':s=48000:d=16" \
    -af "afade=t=in:d=0.05,afade=t=out:st=15.95:d=0.05" -ac 1 -c:a aac -b:a 32k \
    -map_metadata -1 -fflags +bitexact -flags:a +bitexact "$out/music.m4a"
ls -l "$out"
