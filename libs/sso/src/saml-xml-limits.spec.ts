import {
  checkSamlResponseShape,
  SAML_RESPONSE_MAX_BASE64_LENGTH,
  SAML_RESPONSE_MAX_DEPTH,
  SAML_RESPONSE_MAX_XML_BYTES,
  xmlShapeProblem,
} from './saml-xml-limits';

const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');
const nested = (depth: number) => `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;

function status(samlResponse: string): { status: number; message: string } | null {
  try {
    checkSamlResponseShape(samlResponse);
    return null;
  } catch (error) {
    return { status: (error as { status: number }).status, message: (error as Error).message };
  }
}

describe('SAMLResponse limits before parsing', () => {
  it(`accepts ${SAML_RESPONSE_MAX_DEPTH} levels of elements`, () => {
    expect(status(b64(nested(SAML_RESPONSE_MAX_DEPTH)))).toBeNull();
  });

  it(`refuses ${SAML_RESPONSE_MAX_DEPTH + 1} levels: 400`, () => {
    expect(status(b64(nested(SAML_RESPONSE_MAX_DEPTH + 1)))).toEqual({
      status: 400,
      message: `SAMLResponse: the XML is nested deeper than ${SAML_RESPONSE_MAX_DEPTH} elements`,
    });
  });

  it('refuses 100,000 levels (a linear scan, no parser)', () => {
    expect(xmlShapeProblem(nested(100_000), SAML_RESPONSE_MAX_DEPTH)).toMatch(/nested deeper/);
  });

  it('counts empty-element tags and end tags, so long flat documents pass', () => {
    expect(xmlShapeProblem(`<r>${'<x a="1"/><y></y>'.repeat(10_000)}</r>`, 2)).toBeNull();
  });

  it('follows quotes: a > inside an attribute value does not end the tag', () => {
    expect(xmlShapeProblem('<r><x a="1 > 2" b=\'/>\'><y/></x></r>', 3)).toBeNull();
    expect(xmlShapeProblem('<r><x a="/>"><y><z/></y></x></r>', 3)).toMatch(/nested deeper than 3/);
  });

  it('skips comments, CDATA sections and processing instructions', () => {
    expect(xmlShapeProblem('<?xml version="1.0"?><r><!-- <a><a><a> --><![CDATA[<a><a><a>]]></r>', 1)).toBeNull();
  });

  it('refuses a DOCTYPE (entity expansion)', () => {
    expect(status(b64('<!DOCTYPE r [<!ENTITY a "aaaa">]><r>&a;</r>'))).toEqual({
      status: 400,
      message: 'SAMLResponse: a document type declaration (DOCTYPE) is not allowed',
    });
  });

  it(`refuses more than ${SAML_RESPONSE_MAX_XML_BYTES} bytes of XML, and a longer base64 text, before decoding further`, () => {
    expect(status(b64(`<r>${'x'.repeat(SAML_RESPONSE_MAX_XML_BYTES)}</r>`))).toMatchObject({ status: 400 });
    expect(status('A'.repeat(SAML_RESPONSE_MAX_BASE64_LENGTH + 1))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/at most/),
    });
  });

  it('leaves what is not XML to the parser', () => {
    expect(status('%%%')).toBeNull();
    expect(status(b64('not xml at all'))).toBeNull();
  });
});
