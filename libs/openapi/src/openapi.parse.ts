import { lazyPackage, yaml } from '#platform/lazy-package';
import { fetchDocument, ProcessingFailure, type FetchLimits } from './openapi.fetch';
import { expandedSize } from './openapi.refs';
import { checkDereferenced } from './openapi.schema-check';

// Needed only to process a spec (a write), not to start or to serve reads.
const swaggerParser = lazyPackage(() => require('@apidevtools/swagger-parser') as typeof import('@apidevtools/swagger-parser'));

/** Limits of parsing: `$ref`s to other documents are fetched with the fetch limits, at most `maxExternalDocuments` of them. */
export interface ParseLimits extends FetchLimits {
  maxExternalDocuments: number;
}

export interface ParsedSpec {
  /** The document with its external references inlined (bundled): JSON, internal `$ref`s kept. */
  document: Record<string, unknown>;
  /** `document` as JSON text. */
  json: string;
  /** `openapi 3.1.0` or `swagger 2.0`. */
  kind: 'openapi' | 'swagger';
  version: string;
}

const MAX_MESSAGE = 1000;
/** YAML aliases allowed in one document: aliases expand on serialization ("billion laughs"). */
const MAX_YAML_ALIASES = 100;
/**
 * Values a document may make once its `$ref`s are inlined the way validation inlines them
 * (openapi.refs.ts): validation walks every one of them, twice, at about a microsecond each. A
 * document past it is refused before validation (DOCUMENT_TOO_COMPLEX): schemas that reference
 * each other several times over multiply, and 3 KB of them would take hours.
 */
export const MAX_EXPANDED_VALUES = 5_000_000;

/** A JSON or YAML text as a value; a text that is neither is an invalid spec. */
export function parseText(text: string, where: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw invalid(`${where} is not valid JSON: ${messageOf(error)}`);
    }
  }
  try {
    return yaml().parse(text, { maxAliasCount: MAX_YAML_ALIASES, prettyErrors: false, uniqueKeys: false });
  } catch (error) {
    throw invalid(`${where} is neither valid JSON nor valid YAML: ${messageOf(error)}`);
  }
}

/** The bytes as UTF-8 text; anything else is an invalid spec. */
function utf8(bytes: Buffer, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalid(`${where} is not UTF-8 text`);
  }
}

/**
 * Parses an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML) with @apidevtools/swagger-parser:
 * external `$ref`s are resolved (bundled in) through the guarded fetch, with its limits and at most
 * `maxExternalDocuments` documents, relative to `baseUrl` (a text source has none, so its relative
 * references fail); local files are never read. The bundled document is then validated against the
 * specification's schema and rules, unless its `$ref`s would make validation walk more than
 * MAX_EXPANDED_VALUES values (DOCUMENT_TOO_COMPLEX, decided in linear time before validating).
 * Every failure is a ProcessingFailure naming the problem. CPU-heavy on what callers send: run it in
 * the untrusted-work pool (openapi.work.ts), never on the thread that answers requests.
 */
export async function parseSpec(bytes: Buffer, baseUrl: string | null, limits: ParseLimits): Promise<ParsedSpec> {
  const where = baseUrl ?? 'the spec';
  const value = parseText(utf8(bytes, where), where);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid(`${where} is not an OpenAPI or Swagger document (not an object)`);
  const root = value as Record<string, unknown>;
  const kind = typeof root.openapi === 'string' ? 'openapi' : typeof root.swagger === 'string' ? 'swagger' : null;
  if (kind === null) throw invalid(`${where} is not an OpenAPI or Swagger document: it has no openapi or swagger version string`);
  let fetched = 0;
  let failure: ProcessingFailure | null = null;
  const options = {
    resolve: {
      file: false,
      http: false,
      external: true,
      guarded: {
        order: 1,
        canRead: /^https?:\/\//i,
        read: async (file: { url: string }) => {
          try {
            if (++fetched > limits.maxExternalDocuments)
              throw invalid(`${where} references more than ${limits.maxExternalDocuments} other documents`);
            return utf8((await fetchDocument(file.url, limits)).bytes, file.url);
          } catch (error) {
            failure ??= error instanceof ProcessingFailure ? error : invalid(messageOf(error));
            throw failure;
          }
        },
      },
    },
    parse: {
      json: { parse: (file: { data: unknown; url: string }) => parseText(String(file.data), file.url) },
      yaml: { parse: (file: { data: unknown; url: string }) => parseText(String(file.data), file.url) },
      text: false,
      binary: false,
    },
    dereference: { circular: 'ignore' as const },
    timeoutMs: Math.max(1000, limits.timeMs * (limits.maxExternalDocuments + 1)),
  };
  // Bundling only inlines other documents, and costs at least the square of the references (a linear
  // search of its inventory for each one, more where they point at each other): a document that names
  // no other skips it. One that does is bounded by the processing time budget.
  let bundled = root;
  if (hasExternalReferences(root)) {
    try {
      bundled = (await new (swaggerParser())().bundle(
        baseUrl ?? 'spec:///openapi.json',
        root as never,
        options as never,
      )) as unknown as Record<string, unknown>;
    } catch (error) {
      if (failure) throw failure;
      if (error instanceof ProcessingFailure) throw error;
      throw invalid(`${where} could not be read: ${messageOf(error)}`);
    }
  }
  const json = JSON.stringify(bundled);
  if (Buffer.byteLength(json) > limits.maxBytes * 4)
    throw new ProcessingFailure('DOCUMENT_TOO_LARGE', `${where} is larger than allowed once its references are resolved`);
  const document = JSON.parse(json) as Record<string, unknown>;
  const expanded = expandedSize(document);
  if (expanded > MAX_EXPANDED_VALUES) {
    const amount = Number.isFinite(expanded) ? `about ${Math.round(expanded).toLocaleString('en-US')}` : 'more than 10^308';
    throw new ProcessingFailure(
      'DOCUMENT_TOO_COMPLEX',
      `${where} is too complex to validate: its $refs, inlined as validation inlines them, make ${amount} values, more than the ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} allowed (a schema referenced twice from a schema that is itself referenced twice counts four times)`,
    );
  }
  try {
    // swagger-parser's `validate`, in its steps: the dereferencing is its own, the checks (with the schema compiled once) openapi.schema-check.ts.
    const dereferenced = await new (swaggerParser())().dereference(
      structuredClone(document) as never,
      { resolve: { external: false, file: false, http: false }, dereference: { circular: 'ignore' } } as never,
    );
    checkDereferenced(dereferenced as unknown as Record<string, unknown>);
  } catch (error) {
    throw invalid(`${where} is not a valid ${kind === 'openapi' ? 'OpenAPI' : 'Swagger'} document: ${messageOf(error)}`);
  }
  return { document, json, kind, version: String(root[kind]) };
}

/** Whether a `$ref` of the document names another document (anything but `#…`). Iterative: documents nest deep. */
function hasExternalReferences(root: Record<string, unknown>): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    const ref = (value as { $ref?: unknown }).$ref;
    if (!Array.isArray(value) && typeof ref === 'string' && !ref.startsWith('#')) return true;
    for (const member of Array.isArray(value) ? value : Object.values(value))
      if (typeof member === 'object' && member !== null) pending.push(member);
  }
  return false;
}

function invalid(text: string): ProcessingFailure {
  const message = text.replace(/\s*\n\s*/g, '; ').replace(/[;\s]+$/, '');
  return new ProcessingFailure('INVALID_SPEC', message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
