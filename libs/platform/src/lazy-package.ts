/**
 * A package loaded on its first use instead of at start. Start-up time is mostly module loading
 * (about 2 of 3 seconds on a slow machine), and a third of that went to packages that only some
 * requests need: markdown and HTML conversion, PDF, YAML, JSON Schema, JWT, SAML, OpenAPI
 * validation. The first request that needs one pays its load (tens of milliseconds) once.
 *
 * `load` is a `require` with the package's type, the type import erased by the compiler:
 * `const pdfkit = lazyPackage(() => require('pdfkit') as typeof import('pdfkit'));`
 * ES-module-only packages load the same way (Node 20.19 and later `require` them).
 */
export function lazyPackage<T>(load: () => T): () => T {
  let loaded: { readonly value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}

/** Packages more than one context loads lazily: one loader each. */
export const yaml = lazyPackage(() => require('yaml') as typeof import('yaml'));
export const jose = lazyPackage(() => require('jose') as typeof import('jose'));
