#pragma once
/* Debian's libxml2 is built with ICU, and its encoding.h then includes ICU's headers, which Swift
   also sees through Foundation's own copy of ICU (_FoundationICU): two definitions of UErrorCode,
   an error in any Swift file importing both. Nothing here uses libxml2's ICU converters (only the
   layout of xmlCharEncodingHandler, never touched from Swift, depends on it), so they are left out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/* The line and column the parser has reached (ctxt->input, which Swift cannot follow safely when NULL). */
static inline int maptrip_xml_line(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->line : 0;
}
static inline int maptrip_xml_column(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->col : 0;
}

/* An attribute's value as SAX2 hands it over when entities are not substituted ('&' kept as "&#38;",
   references to declared entities as they are), decoded as libxml2's own tree builder decodes it
   (xmlSAX2AttributeNs); NULL on an error, which the context records. Free with maptrip_xml_free. */
static inline xmlChar *maptrip_xml_decode(xmlParserCtxtPtr ctxt, const xmlChar *begin, const xmlChar *end) {
    return xmlStringLenDecodeEntities(ctxt, begin, (int)(end - begin), XML_SUBSTITUTE_REF, 0, 0, 0);
}
static inline void maptrip_xml_free(void *p) { xmlFree(p); }
