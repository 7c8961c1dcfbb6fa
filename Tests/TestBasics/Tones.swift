import Foundation

/// Pure tones for the sound tests, and what a decoded track holds of one: tones at different frequencies
/// mixed together are measured apart (music at 220 Hz, a voice at 1000 Hz).
public enum Tones {
    /// `seconds` of a sine at `frequency` Hz and peak `amplitude`, at `rate` samples per second.
    public static func sine(_ frequency: Double, seconds: Double, amplitude: Float, rate: Int = 48000) -> [Float] {
        let count = Int((seconds * Double(rate)).rounded())
        return (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    /// The peak amplitude of the `frequency` Hz component of `samples` between `from` and `to` seconds
    /// (a single-bin DFT; windows of whole periods of the tones measured keep the others out).
    public static func amplitude(_ samples: [Float], _ frequency: Double, _ from: Double, _ to: Double,
                                 rate: Int = 48000) -> Double {
        let a = max(0, Int(from * Double(rate))), b = min(samples.count, Int(to * Double(rate)))
        guard b > a else { return 0 }
        let w = 2 * Double.pi * frequency / Double(rate)
        var re = 0.0, im = 0.0
        for n in a..<b {
            re += Double(samples[n]) * cos(w * Double(n))
            im += Double(samples[n]) * sin(w * Double(n))
        }
        return 2 * (re * re + im * im).squareRoot() / Double(b - a)
    }

    /// `amplitude` in decibels (full scale 1).
    public static func level(_ samples: [Float], _ frequency: Double, _ from: Double, _ to: Double) -> Double {
        20 * log10(max(amplitude(samples, frequency, from, to), 1e-9))
    }

    /// RMS of `a - b` over `a`'s RMS, in decibels: how far a decoding is from another of the same sound.
    public static func difference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var signal = 0.0, error = 0.0
        for (x, y) in zip(a, b) {
            signal += Double(x) * Double(x)
            error += (Double(x) - Double(y)) * (Double(x) - Double(y))
        }
        return 10 * log10(max(error, 1e-30) / max(signal, 1e-30))
    }
}
