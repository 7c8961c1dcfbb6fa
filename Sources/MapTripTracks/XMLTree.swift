import Foundation
import LibXML2

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

/// Reads XML into `XMLElement`s with libxml2's SAX2 parser (`LibXML2`): positions from its line and
/// column, external entities never loaded, the text kept bounded by the file's size (so that entities
/// cannot blow it up; libxml2's own amplification limits stay on too).
enum XMLTree {
    static func parse(_ data: Data) throws(TrackProblem) -> XMLElement {
        let limit = 8 * data.count + (1 << 20)
        var root: XMLElement?
        var stack: [XMLElement] = []
        var characters = 0
        var tooMuchText: XMLPosition?
        let finished: Bool
        do {
            let parser = try SAXParser()
            finished = try parser.parse(data) { event, at in
                switch event {
                case let .start(name, _, attributes):
                    var attrs: [String: String] = [:]
                    for a in attributes {
                        attrs[a.name] = a.value
                        characters += a.value.utf8.count
                    }
                    let e = XMLElement(name: name, attributes: attrs, location: TrackLocation(line: at.line, column: at.column))
                    if let parent = stack.last { parent.children.append(e) } else if root == nil { root = e }
                    stack.append(e)
                case .end:
                    _ = stack.popLast()
                case let .text(string):
                    characters += string.utf8.count
                    if characters > limit {
                        tooMuchText = at
                        return false
                    }
                    stack.last?.text += string
                }
                return true
            }
        } catch {
            throw TrackProblem("the XML is not well-formed: \(describe(error.code, error.message))",
                               at: TrackLocation(line: max(1, error.line), column: max(1, error.column)),
                               hint: "the file may be cut short or not XML at all; export it again")
        }
        if let at = tooMuchText {
            throw TrackProblem("the XML expands to more than \(limit / (1 << 20)) MB of text (entities that expand without end?)",
                               at: TrackLocation(line: at.line, column: at.column))
        }
        guard finished, let root, stack.isEmpty else {
            throw TrackProblem("the XML is not well-formed: \(describe(5, ""))", at: .none,
                               hint: "the file may be cut short or not XML at all; export it again")
        }
        return root
    }

    /// libxml2's error codes (`xmlParserErrors`) in words, the common ones; libxml2's own message for
    /// the rest.
    static func describe(_ code: Int, _ message: String) -> String {
        switch code {
        case 4: "the document is empty or not XML"
        case 5, 77: "the document ends before its elements are closed"
        case 9: "a character that XML does not allow"
        case 23: "an unexpected character in a start tag"
        case 26: "an entity that is not declared"
        case 38...43: "a malformed attribute"
        case 68: "a name was expected"
        case 73: "a start tag is not closed by '>'"
        case 76: "an end tag does not match its start tag"
        case 89: "entities that expand without end (an entity reference loop, or too much amplification)"
        default: message.isEmpty ? "libxml2 error \(code)" : "\(message) (libxml2 error \(code))"
        }
    }
}
