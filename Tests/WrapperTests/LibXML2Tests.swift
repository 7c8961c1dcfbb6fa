import Foundation
import LibXML2
import Testing

@Suite("libxml2")
struct LibXML2Tests {
    static func events(_ xml: String) throws(XMLError) -> [String] {
        var out: [String] = []
        try SAXParser().parse(Data(xml.utf8)) { event, at in
            switch event {
            case let .start(name, prefix, attributes):
                out.append("\(at.line):\(at.column) <\(prefix.map { $0 + ":" } ?? "")\(name)"
                           + attributes.map { " \($0.name)=\($0.value)" }.joined() + ">")
            case let .end(name, _): out.append("</\(name)>")
            case let .text(t): out.append(t)
            }
            return true
        }
        return out
    }

    @Test("Elements, attributes, text and CDATA, each start tag where its '>' or '/>' is")
    func events() throws {
        let xml = "<gpx a=\"1\">\n <p:hr xmlns:p=\"u\">7</p:hr><t b='x&amp;y'/><![CDATA[<c>]]></gpx>"
        let events = try Self.events(xml)
        #expect(events == ["1:11 <gpx a=1>", "\n ", "2:19 <p:hr>", "7", "</hr>", "2:42 <t b=x&y>", "</t>", "<c>", "</gpx>"], "\(events)")
    }

    @Test("libxml2's own error with its line and column; no external entity is loaded")
    func errors() throws {
        #expect(throws: XMLError.self) { try Self.events("") }
        do {
            _ = try Self.events("<a>\n<b></c></a>")
            Issue.record("no error")
        } catch {
            #expect(error.code == 76 && error.line == 2 && error.column == 8, "\(error)")
            #expect(error.message.contains("mismatch"), "\(error)")
        }
        let external = "<!DOCTYPE a [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><a>&e;</a>"
        let text = (try? Self.events(external)) ?? []
        #expect(!text.joined().contains("root:"))
    }

    @Test("A handler that says stop stops the parse")
    func stop() throws {
        var seen = 0
        let finished = try SAXParser().parse(Data("<a><b/><c/><d/></a>".utf8)) { _, _ in seen += 1; return seen < 2 }
        #expect(!finished && seen == 2)
    }
}
