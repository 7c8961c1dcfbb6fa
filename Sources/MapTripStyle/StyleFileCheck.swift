import Foundation
import MapTripScene
import MapTripSupport

/// `map.style` read as `validate` and a render's start read it: a style that does not read is an
/// error, its warnings (unknown properties, layer types not drawn) are passed on; each says where in
/// the style file (`style.json:12:7: layers[3].paint.line-width: ...`).
///
/// With `fonts`, a symbol layer whose `text-font` names a family fontconfig does not have is a
/// warning, once per family: its labels are drawn in another family than the style asks for.
public struct StyleFileCheck: StyleChecking {
    /// The family a font stack asks for when it is not installed, and the family drawn instead (nil:
    /// installed). The style module has no fonts of its own: the renderer's fontconfig answers.
    public let fonts: (@Sendable ([String]) -> (asked: String, found: String)?)?

    public init(fonts: (@Sendable ([String]) -> (asked: String, found: String)?)? = nil) {
        self.fonts = fonts
    }

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
            return ([], document.warnings.map(said) + missingFonts(document, data: data, file: file))
        } catch {
            return (Diagnostic.from(error).map(said), [])
        }
    }

    /// A warning for each family the symbol layers' constant `text-font` stacks ask for and fontconfig
    /// does not have, at the first layer naming it (`layers[i].layout.text-font`).
    func missingFonts(_ document: StyleDocument, data: Data, file: String) -> [(message: String, hint: String?)] {
        guard let fonts else { return [] }
        // The style's JSON again for the positions, only once a font is missing (the document keeps none).
        var layersJSON: [JSONValue]?
        var asked: Set<[String]> = [], seen: Set<String> = []
        var out: [(message: String, hint: String?)] = []
        for layer in document.layers where layer.type == .symbol {
            // Each stack asked of fontconfig once (a style names the same few in many layers).
            guard let value = layer.layout["text-font"], value.isZoomConstant, value.isFeatureConstant,
                  let stack = value.evaluate(EvaluationContext(zoom: 0)).array?.compactMap(\.string),
                  asked.insert(stack).inserted,
                  let missing = fonts(stack), seen.insert(missing.asked.lowercased()).inserted else { continue }
            if layersJSON == nil { layersJSON = (try? JSONParser.parse(data, file: file))?["layers"]?.elements ?? [] }
            let layersJSON = layersJSON ?? []
            let index = layersJSON.firstIndex { $0["id"]?.string == layer.id }
            let json = index.flatMap { layersJSON[$0]["layout"]?["text-font"] }
            let position = json.map { "\(file):\($0.position.line):\($0.position.column): " } ?? "\(file): "
            out.append(("style \(position)layers[\(index ?? 0)].layout.text-font: font family '\(missing.asked)' is not installed: "
                        + "its labels are drawn in '\(missing.found)'",
                        "install the font, or name an installed family (`fc-list : family` lists them)"))
        }
        return out
    }
}
