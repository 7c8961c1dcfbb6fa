import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML element as the track readers walk it: its local name (the prefix dropped, so `gpxtpx:hr`
/// is `hr`), attributes, text, children and where its start tag ends in the file.
final class XMLElement {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [XMLElement] = []
    let location: TrackLocation

    init(name: String, attributes: [String: String], location: TrackLocation) {
        self.name = name
        self.attributes = attributes
        self.location = location
    }

    /// The first child named `name`.
    func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    /// The children named `name`.
    func all(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`, trimmed; nil when there is none or it is empty.
    func value(_ name: String) -> String? {
        guard let t = child(name)?.text.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
        return t
    }

    /// Every element below this one, depth first, that is named `name` (not looking inside those).
    func descendants(_ name: String) -> [XMLElement] {
        var out: [XMLElement] = []
        var stack: [XMLElement] = children.reversed()
        while let e = stack.popLast() {
            if e.name == name { out.append(e) } else { stack.append(contentsOf: e.children.reversed()) }
        }
        return out
    }
}

/// Reads XML into `XMLElement`s with FoundationXML's `XMLParser` (libxml2): positions from its line
/// and column, external entities never loaded, the text kept bounded by the file's size (so that
/// entities cannot blow it up).
enum XMLTree {
    static func parse(_ data: Data) throws(TrackProblem) -> XMLElement {
        let builder = Builder(limit: 8 * data.count + (1 << 20))
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = builder
        let ok = parser.parse()
        if builder.tooMuchText {
            throw TrackProblem("the XML expands to more than \(builder.limit / (1 << 20)) MB of text (entities that expand without end?)",
                               at: TrackLocation(line: parser.lineNumber, column: parser.columnNumber))
        }
        guard ok, let root = builder.root, builder.stack.isEmpty else {
            // XMLParser may say yes to a document cut short: elements still open are the same fault.
            let code = ok ? 5 : (parser.parserError as NSError?)?.code ?? 0
            throw TrackProblem("the XML is not well-formed: \(describe(code))",
                               at: TrackLocation(line: max(1, parser.lineNumber), column: max(1, parser.columnNumber)),
                               hint: "the file may be cut short or not XML at all; export it again")
        }
        return root
    }

    /// libxml2's error codes (XMLParser.ErrorCode's raw values) in words, the common ones.
    static func describe(_ code: Int) -> String {
        switch code {
        case 4: "the document is empty or not XML"
        case 5: "the document ends before its elements are closed"
        case 9: "a character that XML does not allow"
        case 23: "an unexpected character in a start tag"
        case 26: "an entity that is not declared"
        case 38...43: "a malformed attribute"
        case 68: "a name was expected"
        case 73: "a start tag is not closed by '>'"
        case 76: "an end tag does not match its start tag"
        default: "libxml2 error \(code)"
        }
    }

    final class Builder: NSObject, XMLParserDelegate {
        var root: XMLElement?
        var stack: [XMLElement] = []
        let limit: Int
        var characters = 0
        var tooMuchText = false

        init(limit: Int) { self.limit = limit }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            var attrs: [String: String] = [:]
            for (k, v) in attributes { attrs[k.split(separator: ":").last.map(String.init) ?? k] = v }
            let e = XMLElement(name: local, attributes: attrs,
                               location: TrackLocation(line: parser.lineNumber, column: parser.columnNumber))
            if let parent = stack.last { parent.children.append(e) } else if root == nil { root = e }
            stack.append(e)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            add(string, parser)
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            add(String(decoding: CDATABlock, as: UTF8.self), parser)
        }

        func add(_ string: String, _ parser: XMLParser) {
            characters += string.utf8.count
            if characters > limit {
                tooMuchText = true
                parser.abortParsing()
                return
            }
            stack.last?.text += string
        }
    }
}
