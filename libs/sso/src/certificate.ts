import { X509Certificate } from 'node:crypto';
import { registerDecorator, type ValidationOptions } from 'class-validator';

const PEM_LINE = 64;

/**
 * An identity provider's signing certificate as one X.509 PEM block, or null when the text holds
 * none. PEM is taken as is; the bare base64 body that identity-provider metadata usually shows
 * (no BEGIN/END lines) is accepted too. Only the certificate is kept: anything else in the text
 * (a chain's further certificates, a key pasted by mistake) is dropped.
 */
export function normalizeCertificate(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const pem = trimmed.includes('-----BEGIN') ? trimmed : wrapBase64(trimmed.replace(/\s+/g, ''));
  if (pem === null) return null;
  try {
    return new X509Certificate(pem).toString().trim();
  } catch {
    return null;
  }
}

function wrapBase64(body: string): string | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const lines = body.match(new RegExp(`.{1,${PEM_LINE}}`, 'g')) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----`;
}

/** class-validator: the value parses as an X.509 certificate (see normalizeCertificate). */
export function IsX509Certificate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isX509Certificate',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be an X.509 certificate in PEM format`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.length <= 10_000 && normalizeCertificate(value) !== null,
      },
    });
}
