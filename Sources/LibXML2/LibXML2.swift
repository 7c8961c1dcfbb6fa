import CLibXML2
import Foundation

/// A libxml2 failure: its own message and error code (`xmlParserErrors`: 4 the document is empty,
/// 5 extra content or a document cut short, 76 an end tag that does not match...), where it was found.
public struct XMLError: Error, CustomStringConvertible, Sendable, Equatable {
    public let code: Int
    public let message: String
    /// 1-based; 0 when libxml2 gives no position.
    public let line: Int
    public let column: Int

    public var description: String { "libxml2: \(line):\(column): \(message)" }

    static func from(_ error: UnsafePointer<xmlError>) -> XMLError {
        let e = error.pointee
        let message = e.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "error \(e.code)"
        return XMLError(code: Int(e.code), message: message, line: Int(e.line), column: Int(e.int2))
    }
}

/// What the parser meets, in document order. Names are local (the prefix apart: `gpxtpx:hr` is `hr`
/// with prefix `gpxtpx`); text comes in pieces (character data, CDATA sections, entity text).
public enum XMLEvent: Equatable {
    case start(name: String, prefix: String?, attributes: [XMLAttribute])
    case end(name: String, prefix: String?)
    case text(String)
}

public struct XMLAttribute: Equatable, Sendable {
    public let name: String
    public let prefix: String?
    public let value: String
}

/// Where the parser is when it reports an event: for a start tag, its closing `>` (or the `/` of
/// `/>`); 1-based line and column (columns count bytes).
public struct XMLPosition: Equatable, Sendable {
    public let line: Int
    public let column: Int
}

/// One libxml2 SAX2 push parser (`xmlParserCtxt`, freed in deinit) reading one document from memory.
/// External entities and DTDs are never loaded (no XML_PARSE_NOENT, no XML_PARSE_DTDLOAD, and
/// XML_PARSE_NONET); XML_PARSE_HUGE stays off, so libxml2's own limits on names, text and entity
/// amplification stay on. Not for sharing between threads.
///
/// SAX, not `xmlTextReader`: the reader feeds its parser 512 bytes at a time, so the parser's line
/// and column run ahead of the node it reports (a whole small file reads as at its end), and its nodes
/// keep a line but no column. SAX events come as the parser meets them, each with its exact place.
public final class SAXParser {
    public static let defaultOptions: Int32 =
        Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOERROR.rawValue)

    /// What the C callbacks reach through the context's `_private`.
    final class State {
        let context: xmlParserCtxtPtr?
        var handle: ((XMLEvent, XMLPosition) -> Bool)?
        /// The first fatal error the parser reports, and the first in the contexts libxml2 makes for
        /// entity text (there positions are within the entity; the parser reports the entity too).
        var firstFatal: XMLError?
        var firstInEntity: XMLError?
        var stopped = false
        init(context: xmlParserCtxtPtr?) { self.context = context }
    }

    private let context: xmlParserCtxtPtr
    private let state: State
    private var used = false

    private static let initialised: Void = { xmlInitParser() }()

    public init(options: Int32 = SAXParser.defaultOptions) throws(XMLError) {
        _ = Self.initialised
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)  // libxml2's SAX2 defaults (the DTD, entities), then maptrip's events
        handler.startElementNs = saxStart
        handler.endElementNs = saxEnd
        handler.characters = saxText
        handler.ignorableWhitespace = saxText
        handler.cdataBlock = saxText
        handler.serror = saxError
        guard let context = xmlCreatePushParserCtxt(&handler, nil, nil, 0, nil) else {
            throw xmlGetLastError().map { XMLError.from($0) }
                ?? XMLError(code: 2, message: "libxml2 could not make a parser (out of memory?)", line: 0, column: 0)
        }
        xmlCtxtUseOptions(context, options)
        context.pointee.sax.pointee.serror = saxError  // the options may reset the error channels
        self.context = context
        state = State(context: context)
        context.pointee._private = Unmanaged.passUnretained(state).toOpaque()
    }

    deinit {
        if let doc = context.pointee.myDoc {
            context.pointee.myDoc = nil
            xmlFreeDoc(doc)
        }
        context.pointee._private = nil
        xmlFreeParserCtxt(context)
    }

    /// The line and column the parser has reached.
    public var position: XMLPosition {
        XMLPosition(line: Int(maptrip_xml_line(context)), column: Int(maptrip_xml_column(context)))
    }

    /// Parses `data` as one whole document, calling `handle` for each event; `handle` returns false to
    /// stop (then `parse` returns false). Throws libxml2's first fatal error, with its position, when
    /// the document is not well-formed. A parser reads one document only.
    @discardableResult
    public func parse(_ data: Data, _ handle: @escaping (XMLEvent, XMLPosition) -> Bool) throws(XMLError) -> Bool {
        guard !used else { throw XMLError(code: 1, message: "a SAXParser reads one document only", line: 0, column: 0) }
        used = true
        state.handle = handle
        defer { state.handle = nil }
        let chunk = 1 << 24  // xmlParseChunk takes an int
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: CChar.self)
            var offset = 0
            repeat {
                let n = min(chunk, bytes.count - offset)
                let last = offset + n == bytes.count
                _ = xmlParseChunk(context, n > 0 ? bytes.baseAddress.map { $0 + offset } : nil, Int32(n), last ? 1 : 0)
                offset += n
                if state.stopped || state.firstFatal != nil { break }
            } while offset < bytes.count
        }
        if state.stopped { return false }
        if let e = state.firstFatal { throw e }
        if context.pointee.wellFormed == 0 {
            throw xmlCtxtGetLastError(context).map { XMLError.from($0) } ?? state.firstInEntity
                ?? XMLError(code: 1, message: "the document is not well-formed", line: position.line, column: position.column)
        }
        return true
    }
}

// The C callbacks: the context is the parser's own (userData is the context), maptrip's state in
// its `_private` (also copied into the contexts libxml2 makes for entity text).

private func state(_ ctx: UnsafeMutableRawPointer?) -> (xmlParserCtxtPtr, SAXParser.State)? {
    guard let ctx else { return nil }
    let context = ctx.assumingMemoryBound(to: xmlParserCtxt.self)
    guard let p = context.pointee._private else { return nil }
    let state = Unmanaged<SAXParser.State>.fromOpaque(p).takeUnretainedValue()
    guard !state.stopped, let _ = state.handle else { return nil }
    return (context, state)
}

private func deliver(_ context: xmlParserCtxtPtr, _ state: SAXParser.State, _ event: XMLEvent) {
    let at = XMLPosition(line: Int(maptrip_xml_line(context)), column: Int(maptrip_xml_column(context)))
    guard let handle = state.handle, !handle(event, at) else { return }
    state.stopped = true
    xmlStopParser(state.context ?? context)
    if state.context != context { xmlStopParser(context) }
}

private func string(_ p: UnsafePointer<xmlChar>?) -> String? {
    p.map { String(cString: $0) }
}

private let saxStart: startElementNsSAX2Func = { ctx, localname, prefix, _, _, _, count, _, attributes in
    guard let (context, state) = state(ctx) else { return }
    var attrs: [XMLAttribute] = []
    if let attributes, count > 0 {
        // Five pointers each: local name, prefix, URI, value, end of value.
        for i in 0..<Int(count) {
            let base = i * 5
            guard let name = attributes[base], let begin = attributes[base + 3], let end = attributes[base + 4] else { continue }
            let raw = UnsafeBufferPointer(start: begin, count: max(0, end - begin))
            let value: String
            if raw.contains(UInt8(ascii: "&")) {
                guard let decoded = maptrip_xml_decode(context, begin, end) else { continue }
                value = String(cString: decoded)
                maptrip_xml_free(decoded)
            } else {
                value = String(decoding: raw, as: UTF8.self)
            }
            attrs.append(XMLAttribute(name: String(cString: name), prefix: string(attributes[base + 1]), value: value))
        }
    }
    deliver(context, state, .start(name: string(localname) ?? "", prefix: string(prefix), attributes: attrs))
}

private let saxEnd: endElementNsSAX2Func = { ctx, localname, prefix, _ in
    guard let (context, state) = state(ctx) else { return }
    deliver(context, state, .end(name: string(localname) ?? "", prefix: string(prefix)))
}

private let saxText: charactersSAXFunc = { ctx, ch, len in
    guard let (context, state) = state(ctx), let ch, len > 0 else { return }
    deliver(context, state, .text(String(decoding: UnsafeBufferPointer(start: ch, count: Int(len)), as: UTF8.self)))
}

private let saxError: xmlStructuredErrorFunc = { ctx, error in
    guard let ctx, let error else { return }
    let context = ctx.assumingMemoryBound(to: xmlParserCtxt.self)
    guard let p = context.pointee._private else { return }
    let state = Unmanaged<SAXParser.State>.fromOpaque(p).takeUnretainedValue()
    guard error.pointee.level == XML_ERR_FATAL, !state.stopped else { return }
    if state.context == context {
        if state.firstFatal == nil { state.firstFatal = XMLError.from(error) }
    } else if state.firstInEntity == nil {
        state.firstInEntity = XMLError.from(error)
    }
}
