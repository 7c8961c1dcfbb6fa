import Foundation

/// The lookup key of a place or country name: how the gazetteer compares names, so that
/// "São Paulo", "SÃO PAULO" and "sao paulo" are the same name, and "서울" or "東京" stay themselves.
///
/// The rules are `normalize` in `tools/build-gazetteer.py`, which made the keys stored in the
/// gazetteer; the two must agree exactly (the tests compare them):
///
/// 1. Unicode NFKD (compatibility decomposition: "é" -> "e" + U+0301, "ﬁ" -> "fi", full-width -> ASCII).
/// 2. Each code point is case-folded as its full uppercase mapping, then the lowercase mapping of that
///    ("ß" -> "SS" -> "ss", "ς" -> "Σ" -> "σ", "ı" -> "I" -> "i"); each resulting code point then is
///    - dropped when it is an accent (the combining marks of U+0300-036F, U+1AB0-1AFF, U+1DC0-1DFF,
///      U+20D0-20FF, U+FE20-FE2F; other scripts' marks, such as Devanagari vowel signs or kana voicing
///      marks, are part of the letter and stay);
///    - dropped when it is an apostrophe (', `, ‘, ’, ʹ, ʻ, ʼ, ʾ, ʿ);
///    - replaced for the Latin letters with no decomposition: æ ae, đ d, ð d, ħ h, ł l, ø o, œ oe,
///      ß ss (from the capital ẞ, whose lowercase it is), ŧ t, þ th;
///    - a space when it is not a letter, mark or number (punctuation, symbols, spaces, controls);
///    - else kept.
/// 3. Runs of spaces become one; leading and trailing spaces go.
/// 4. Unicode NFC (recomposes Hangul syllables and kana with voicing marks that step 1 split).
public enum NameKey {
    /// The lookup key of `text`; empty when `text` has no letter or number.
    public static func normalize(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        var pendingSpace = false
        func append(_ scalar: Unicode.Scalar) {
            if pendingSpace && !folded.isEmpty { folded.append(" ") }
            pendingSpace = false
            folded.append(scalar)
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            for upper in scalar.properties.uppercaseMapping.unicodeScalars {
                for c in upper.properties.lowercaseMapping.unicodeScalars {
                    if isAccent(c) || apostrophes.contains(c) { continue }
                    if let ascii = letters[c] {
                        ascii.unicodeScalars.forEach(append)
                    } else if isLetterMarkOrNumber(c) {
                        append(c)
                    } else {
                        pendingSpace = true
                    }
                }
            }
        }
        return String(folded).precomposedStringWithCanonicalMapping
    }

    /// The combining marks of Latin, Greek and Cyrillic: the accents to ignore.
    static func isAccent(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: return true
        default: return false
        }
    }

    static let apostrophes: Set<Unicode.Scalar> = [
        "'", "`", "\u{2018}", "\u{2019}", "\u{02B9}", "\u{02BB}", "\u{02BC}", "\u{02BE}", "\u{02BF}",
    ]

    static let letters: [Unicode.Scalar: String] = [
        "æ": "ae", "đ": "d", "ð": "d", "ħ": "h", "ł": "l", "ø": "o", "œ": "oe", "ß": "ss", "ŧ": "t", "þ": "th",
    ]

    static func isLetterMarkOrNumber(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark,
             .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}
