import { errorCodes, type FastifyInstance } from 'fastify';

/** The assertion consumer service: the only route that takes a form body. */
const ACS_ROUTE = /^\/v1\/sso\/saml\/[^/?#]+\/acs\/?(?:[?#]|$)/;

/**
 * Identity providers post their responses as an HTML form (SAML HTTP-POST binding:
 * `application/x-www-form-urlencoded`), while the API takes JSON only. This parser accepts form
 * bodies on `POST /v1/sso/saml/{providerId}/acs` and answers every other route with the same 415 as
 * any non-JSON body. Register it on the application's root Fastify instance (Nest's routes live
 * there, so an encapsulated plugin would not reach them), after the JSON-only set-up.
 */
export function registerSamlFormParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    if (!ACS_ROUTE.test(request.url)) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(String(request.headers['content-type'] ?? '')), undefined);
      return;
    }
    done(null, parseForm(String(body)));
  });
}

/**
 * Form fields as strings; a repeated field becomes an array (which validation then refuses).
 * Collected in a Map (names come from the request); handed on as a prototype-less object, so a
 * field named `__proto__` or `constructor` is an ordinary (unknown, refused) member.
 */
export function parseForm(body: string): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(body)) {
    const previous = fields.get(name);
    fields.set(name, previous === undefined ? value : ([] as string[]).concat(previous, value));
  }
  const form: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of fields) Object.defineProperty(form, name, { value, enumerable: true, writable: true, configurable: true });
  return form;
}
