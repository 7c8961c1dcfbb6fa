import ArgumentParser
import Foundation
import MapTripOutput
import MapTripScene

// The typed values of maptrip's options. The closed sets come from the library's own lists
// (containers, codecs, presets, pixel formats, themes), so `--help` shows them and the parser turns
// away any other value with the list of those it takes: one line, exit 1 (see `exitForArguments`).

/// `--format`: a container, by its name (`ts` for MPEG-TS too), any case.
extension ContainerFormat: ExpressibleByArgument {
    public init?(argument: String) {
        guard let format = ContainerFormat.named(argument) else { return nil }
        self = format
    }

    /// Each container with what it holds, for the help.
    public static var allValueDescriptions: [String: String] {
        Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0.summary) })
    }
}

/// `--codec`: a codec, by its name or an encoder's (`x264`, `libvpx-vp9`...), any case.
extension VideoCodec: ExpressibleByArgument {
    public init?(argument: String) {
        guard let codec = VideoCodec.named(argument) else { return nil }
        self = codec
    }
}

/// A value from a list maptrip knows (the list in `--help`; any other value turned away by the parser).
protocol KnownNames {
    static var names: [String] { get }
}

/// An option whose value is one of `List.names`.
struct KnownName<List: KnownNames>: ExpressibleByArgument, Equatable {
    var name: String

    init?(argument: String) {
        guard List.names.contains(argument) else { return nil }
        name = argument
    }

    static var allValueStrings: [String] { List.names }
    var defaultValueDescription: String { name }
}

/// `--preset`: a preset some codec of maptrip's takes (x264/x265 names, `replaykit`, VP9/AV1 speed
/// numbers). Whether the output's codec takes it is known only once the output is (by its
/// extension, `--format` or a batch manifest): `CodecProfile.settings` says so then.
enum Presets: KnownNames {
    static var names: [String] { CodecProfile.allPresets }
}
typealias EncoderPreset = KnownName<Presets>

/// `--pix-fmt`: a pixel format some codec of maptrip's takes; which codec, as for `EncoderPreset`.
enum PixelFormats: KnownNames {
    static var names: [String] { CodecProfile.allPixelFormats }
}
typealias PixelFormatName = KnownName<PixelFormats>

/// `schema --theme`: one of the ready themes.
enum Themes: KnownNames {
    static var names: [String] { Style.themes }
}
typealias ThemeName = KnownName<Themes>

/// `tiles --tile-size`: 256 or 512 pixels.
enum TileSize: Int, CaseIterable, ExpressibleByArgument {
    case standard = 256
    /// Each tile shows what four 256-pixel tiles of the next zoom show.
    case double = 512
}

/// A bit rate: `8M`, `2500k`, `800000`, in bits per second.
enum BitRate {
    static func parse(_ text: String) throws -> Int {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let multiplier: Double = t.hasSuffix("m") ? 1e6 : t.hasSuffix("k") ? 1e3 : 1
        let digits = multiplier == 1 ? t : String(t.dropLast())
        guard let value = Double(digits), value > 0, value.isFinite, value * multiplier < Double(Int.max) else {
            throw ValidationError("write e.g. 8M, 2500k or 800000")
        }
        return Int(value * multiplier)
    }
}

/// A time on the command line: seconds (`12.5`), with a unit (`12.5s`, `500ms`, `2min`), or a clock as
/// `maptrip plan` prints one (`0:12.5`). A minus sign is kept, for the command to say what range it takes.
struct TimeArgument: ExpressibleByArgument {
    var seconds: Double

    init?(argument: String) {
        let negative = argument.hasPrefix("-")
        guard let s = TimeText.seconds(in: negative ? String(argument.dropFirst()) : argument) else { return nil }
        seconds = negative ? -s : s
    }
}
