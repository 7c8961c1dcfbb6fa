#!/bin/sh
# Scenes/media/harbour.mp4 and presenter.mp4: the test media of Scenes/clips.json, made with ffmpeg's
# own sources (testsrc2: moving colour bars and a running counter; a sweeping gradient with a clock
# for the presenter). Small on purpose: 320x180 and 240x240, 8 s at 30 fps, H.264, no sound.
set -eu
out=${1:-Scenes/media}
mkdir -p "$out"
ffmpeg -v error -y -f lavfi -i "testsrc2=size=320x180:rate=30:duration=8" \
    -c:v libx264 -preset veryslow -crf 32 -pix_fmt yuv420p -g 30 -bf 0 -movflags +faststart "$out/harbour.mp4"
ffmpeg -v error -y -f lavfi -i "gradients=size=240x240:rate=30:duration=20:speed=0.05:seed=7" \
    -vf "drawtext=text='%{eif\:t*30\:d}':fontcolor=white:fontsize=64:x=(w-tw)/2:y=(h-th)/2:box=1:boxcolor=black@0.4" \
    -c:v libx264 -preset veryslow -crf 34 -pix_fmt yuv420p -g 30 -bf 0 -movflags +faststart "$out/presenter.mp4"
ls -l "$out"
