#!/usr/bin/env python3
"""Writes Sources/MapTripStyle/StyleSpecTable.swift from maplibre-style-spec's src/reference/v8.json.

    python3 tools/style-spec-table.py GIT_DIR

GIT_DIR is a bare git directory of github.com/maplibre/maplibre-style-spec. For every layer type,
each paint and layout property: its type, element type and length (arrays), enum values, default,
whether it takes zoom and feature expressions, and whether it interpolates. Python 3 and git only.
"""
import json
import os
import subprocess
import sys

git_dir = sys.argv[1]
commit = subprocess.check_output(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], text=True).strip()
spec = json.loads(subprocess.check_output(["git", "--git-dir", git_dir, "show", commit + ":src/reference/v8.json"]))


def swift_string(s):
    return json.dumps(s, ensure_ascii=False)


lines = []
for kind in spec["layer"]["type"]["values"]:
    for section, group in (("paint", "paint_" + kind), ("layout", "layout_" + kind)):
        for name, p in sorted(spec.get(group, {}).items()):
            expression = p.get("expression", {})
            params = expression.get("parameters", [])
            default = json.dumps(p["default"], separators=(",", ":")) if "default" in p else None
            values = sorted(p["values"].keys()) if p.get("type") == "enum" else []
            fields = [
                "layer: " + swift_string(kind),
                "section: ." + section,
                "name: " + swift_string(name),
                "type: " + swift_string(p["type"]),
                "element: " + (swift_string(p["value"]) if isinstance(p.get("value"), str) else "nil"),
                "length: " + (str(p["length"]) if "length" in p else "nil"),
                "values: [" + ", ".join(swift_string(v) for v in values) + "]",
                "defaultJSON: " + (swift_string(default) if default is not None else "nil"),
                "zoom: " + ("true" if "zoom" in params else "false"),
                "feature: " + ("true" if "feature" in params else "false"),
                "interpolated: " + ("true" if expression.get("interpolated") else "false"),
                "tokens: " + ("true" if p.get("tokens") else "false"),
            ]
            lines.append("        PropertySpec(" + ", ".join(fields) + "),")

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "MapTripStyle", "StyleSpecTable.swift")
with open(out, "w") as f:
    f.write("// Written by tools/style-spec-table.py from maplibre-style-spec's src/reference/v8.json at\n")
    f.write("// commit %s. Do not edit by hand.\n\n" % commit)
    f.write("extension PropertySpec {\n")
    f.write("    /// Every layer type's paint and layout properties, as the style specification (v8) gives them.\n")
    f.write("    static let table: [PropertySpec] = [\n")
    f.write("\n".join(lines) + "\n")
    f.write("    ]\n}\n")
print("wrote %d properties from %s" % (len(lines), commit))
