import { X509Certificate } from 'node:crypto';
import { normalizeCertificate } from './certificate';
import { parseForm } from './saml-form-parser';
import { generateKeyPair } from '#testing/fake-idp';

const { certificate, privateKey } = generateKeyPair('Certificate spec');
const pem = certificate.replace(/\r\n/g, '\n').trim();
const body = pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

describe('normalizeCertificate', () => {
  it('given a PEM certificate (any line endings, surrounding blanks), then the same certificate as one PEM block', () => {
    expect(normalizeCertificate(`\n  ${certificate}  \n`)).toBe(pem);
    expect(new X509Certificate(normalizeCertificate(certificate)!).subject).toBe('CN=Certificate spec');
  });

  it('given the bare base64 body, on one line or wrapped, then the PEM certificate', () => {
    expect(normalizeCertificate(body)).toBe(pem);
    expect(normalizeCertificate(body.replace(/(.{76})/g, '$1\n'))).toBe(pem);
  });

  it('given a certificate followed by a private key pasted by mistake, then only the certificate is kept', () => {
    expect(normalizeCertificate(`${certificate}\n${privateKey}`)).toBe(pem);
  });

  it('given anything but a certificate, then null', () => {
    for (const text of [
      '',
      '   ',
      'not a certificate',
      'AAAA',
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      privateKey,
      body.slice(0, 200),
    ]) {
      expect(normalizeCertificate(text)).toBeNull();
    }
  });
});

describe('parseForm (ACS bodies)', () => {
  it('given a form body, then its fields, percent- and plus-decoded', () => {
    const fields = parseForm('SAMLResponse=PD94bWw%2BPHg%2B&RelayState=%2Fdocs+home');
    expect({ ...fields }).toEqual({ SAMLResponse: 'PD94bWw+PHg+', RelayState: '/docs home' });
  });

  it('given a repeated field, then an array (which validation refuses); given __proto__, then a plain field', () => {
    const fields = parseForm('SAMLResponse=a&SAMLResponse=b&__proto__=x');
    expect(fields.SAMLResponse).toEqual(['a', 'b']);
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect(fields['__proto__']).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
