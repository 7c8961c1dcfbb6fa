import Foundation
import MapTripScene
import MapTripSupport

/// `map.style` read as `validate` and a render's start read it: a style that does not read is an
/// error, its warnings (unknown properties, layer types not drawn) are passed on; each says where in
/// the style file (`style.json:12:7: layers[3].paint.line-width: ...`).
public struct StyleFileCheck: StyleChecking {
    public init() {}

    public func problems(with url: URL) -> (errors: [(message: String, hint: String?)],
                                            warnings: [(message: String, hint: String?)]) {
        let file = url.relativePath
        func said(_ d: Diagnostic) -> (message: String, hint: String?) {
            var where_ = d.position
            if let path = d.path, !path.isEmpty { where_ += path + ": " }
            return ("style " + where_ + d.message, d.hint)
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue,
           size > StyleDocument.maxBytes {
            return ([("style \(file): \(size) bytes, more than a style may be (\(StyleDocument.maxBytes))",
                      "is this the right file? A MapLibre GL style lists sources and layers")], [])
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return ([("cannot read the style file \(file)", "let this user read it")], [])
        }
        do {
            let document = try StyleDocument(data: data, file: file)
            return ([], document.warnings.map(said))
        } catch {
            return (Diagnostic.from(error).map(said), [])
        }
    }
}
