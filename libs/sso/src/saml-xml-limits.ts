import { DomainError } from '#platform/errors';

/**
 * Limits on a `SAMLResponse`, checked before any XML parser sees it: parsing and canonicalizing
 * deeply nested or huge documents costs the event loop dearly, and real responses (one assertion,
 * a signature, a certificate, a few attributes) are a few KiB deep by less than 20 elements.
 */
export const SAML_RESPONSE_MAX_XML_BYTES = 256 * 1024;
/** base64 of SAML_RESPONSE_MAX_XML_BYTES, with room for the line breaks some providers insert. */
export const SAML_RESPONSE_MAX_BASE64_LENGTH = 360_000;
export const SAML_RESPONSE_MAX_DEPTH = 64;

/** 400 when the response is too large, too deep or carries a DOCTYPE; otherwise nothing. */
export function checkSamlResponseShape(samlResponse: string): void {
  if (samlResponse.length > SAML_RESPONSE_MAX_BASE64_LENGTH)
    throw DomainError.invalid(`SAMLResponse must be at most ${SAML_RESPONSE_MAX_BASE64_LENGTH} characters`);
  const xml = Buffer.from(samlResponse, 'base64');
  if (xml.length > SAML_RESPONSE_MAX_XML_BYTES)
    throw DomainError.invalid(`SAMLResponse must decode to at most ${SAML_RESPONSE_MAX_XML_BYTES} bytes of XML`);
  const problem = xmlShapeProblem(xml.toString('utf8'), SAML_RESPONSE_MAX_DEPTH);
  if (problem !== null) throw DomainError.invalid(`SAMLResponse: ${problem}`);
}

/**
 * One linear pass over the text: element depth from start tags, end tags and empty-element tags
 * (attribute values may hold `>`, so quotes are followed); comments, CDATA sections and processing
 * instructions are skipped. A DOCTYPE is refused outright: SAML has none, and it is how entity
 * expansion attacks begin. Not a validator: what is not XML is left for the parser to refuse.
 */
export function xmlShapeProblem(xml: string, maxDepth: number): string | null {
  let depth = 0;
  let at = 0;
  const length = xml.length;
  while (at < length) {
    const open = xml.indexOf('<', at);
    if (open < 0) return null;
    const next = xml[open + 1];
    if (next === '/') {
      depth -= 1;
      const close = xml.indexOf('>', open);
      if (close < 0) return null;
      at = close + 1;
    } else if (next === '?') {
      at = skipPast(xml, '?>', open + 2);
    } else if (next === '!') {
      if (xml.startsWith('<!--', open)) at = skipPast(xml, '-->', open + 4);
      else if (xml.startsWith('<![CDATA[', open)) at = skipPast(xml, ']]>', open + 9);
      else return 'a document type declaration (DOCTYPE) is not allowed';
    } else {
      depth += 1;
      if (depth > maxDepth) return `the XML is nested deeper than ${maxDepth} elements`;
      let quote: string | null = null;
      let end = open + 1;
      for (; end < length; end++) {
        const char = xml[end];
        if (quote !== null) {
          if (char === quote) quote = null;
        } else if (char === '"' || char === "'") {
          quote = char;
        } else if (char === '>') {
          break;
        }
      }
      if (end >= length) return null;
      if (xml[end - 1] === '/') depth -= 1;
      at = end + 1;
    }
  }
  return null;
}

function skipPast(xml: string, terminator: string, from: number): number {
  const end = xml.indexOf(terminator, from);
  return end < 0 ? xml.length : end + terminator.length;
}
