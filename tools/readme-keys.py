#!/usr/bin/env python3
"""Puts `maptrip schema --markdown` between the README's scene-key markers (SchemaTests checks it).
Usage: tools/readme-keys.py [path to maptrip, default .build/debug/maptrip]"""
import subprocess, sys
binary = sys.argv[1] if len(sys.argv) > 1 else '.build/debug/maptrip'
begin = '<!-- scene keys: generated from SceneFormat by `maptrip schema --markdown`; a test keeps them equal -->'
end = '<!-- end of scene keys -->'
readme = open('README.md').read()
table = subprocess.run([binary, 'schema', '--markdown'], capture_output=True, text=True, check=True).stdout
b = readme.index(begin) + len(begin)
e = readme.index(end)
open('README.md', 'w').write(readme[:b] + '\n' + table + readme[e:])
