/**
 * How the service serves the bytes of a file someone uploaded (a space's file download, a published
 * site's `~files`): so that they never run as a page, a stylesheet or a script of this origin.
 *
 * Only types a browser displays without running anything go inline (images other than SVG, PDF,
 * plain text, common audio and video); everything else (HTML, SVG, XML and its dialects such as
 * MathML, XSL and RDF, `multipart/x-mixed-replace`, scripts, and any type not listed) is an
 * attachment. An allow-list rather than a deny-list: browsers keep finding types to render.
 * `nosniff` keeps the browser to the declared type, and the sandboxing CSP keeps even an inline
 * document (a PDF) from scripting the origin.
 */

/** Types served inline: displayed by browsers, never run. */
const INERT_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'application/pdf',
  'text/plain',
  'audio/mpeg',
  'audio/mp4',
  'audio/aac',
  'audio/ogg',
  'audio/opus',
  'audio/wav',
  'audio/x-wav',
  'audio/webm',
  'audio/flac',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
]);

/** `type/subtype` with optional `; name=value` parameters, in the token characters of RFC 9110. */
const MEDIA_TYPE =
  /^([a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+)((?:\s*;\s*[a-z0-9!#$%&'*+.^_`|~-]+=(?:[a-z0-9!#$%&'*+.^_`|~-]+|"[^"\\\r\n]*"))*)\s*$/i;

/** The CSP of a served file: no script, no plugin, no request, in a sandbox of its own. */
export const SERVED_FILE_CSP = "default-src 'none'; sandbox";

/** Whether a declared content type may be shown inline (its `type/subtype`, case-insensitive, is in the allow-list). */
export function isInertContentType(contentType: string): boolean {
  const match = MEDIA_TYPE.exec(contentType.trim());
  return match !== null && INERT_TYPES.has(match[1].toLowerCase());
}

/**
 * The headers that go with a served file's bytes: its declared type (`application/octet-stream`
 * when that is not a well-formed media type, which also keeps header injection out), inline or
 * attachment by `isInertContentType`, with the file's name.
 */
export function servedFileHeaders(file: { name: string; contentType: string; size: number }): Record<string, string> {
  const declared = file.contentType.trim();
  const contentType = MEDIA_TYPE.test(declared) ? declared : 'application/octet-stream';
  return {
    'content-type': contentType,
    'content-length': String(file.size),
    'content-disposition': `${isInertContentType(contentType) ? 'inline' : 'attachment'}; ${dispositionFilename(file.name)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': SERVED_FILE_CSP,
  };
}

/** `filename` (ASCII fallback) and `filename*` (UTF-8, RFC 8187) parameters for a Content-Disposition header. */
function dispositionFilename(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  // encodeURIComponent leaves ' ( ) * ! unescaped; RFC 8187's attr-char does not allow the first four.
  let encoded: string;
  try {
    encoded = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  } catch {
    return `filename="${ascii}"`; // a lone surrogate has no UTF-8
  }
  return `filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
