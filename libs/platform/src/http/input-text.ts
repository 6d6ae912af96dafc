/**
 * What text the API accepts anywhere in a request (body strings and member names, query values,
 * path parameters): well-formed Unicode (no lone surrogate, which breaks e-mail checks, URL
 * encoding and length limits further in) and no control characters other than tab, line feed and
 * carriage return (C0, DEL and C1 have no business in titles, names or ids, and NUL in particular
 * ends strings in other systems).
 */

/** C0 controls except tab (09), LF (0A) and CR (0D); DEL (7F); C1 controls (80–9F). */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** `String.prototype.isWellFormed` (Node 20+), typed here because the compiler's library is ES2022. */
const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed;

export const TEXT_RULE = 'must be well-formed Unicode text without control characters other than tab, line feed and carriage return';

export function isAcceptableText(text: string): boolean {
  return isWellFormed.call(text) && !CONTROL.test(text);
}

/** `members.0.email`, as validation messages name fields. */
export function fieldPath(path: readonly (string | number)[]): string {
  const joined = path.join('.');
  return joined.length > 200 ? `${joined.slice(0, 200)}…` : joined;
}

/**
 * Member names that no request needs and that code reading plain objects would take for the
 * object's own machinery: `obj.toString` of a map keyed by request data is a function, `'constructor'
 * in obj` is true, `__proto__` reaches the prototype. Refused everywhere (body members, query names),
 * so that no validator or decider has to remember them one by one.
 */
const PROTOTYPE_MEMBER_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

export function isPrototypeMemberName(name: string): boolean {
  return PROTOTYPE_MEMBER_NAMES.has(name);
}

/**
 * The first thing wrong with a parsed JSON value, as a 400 message naming the field, or null: a
 * string or a member name that breaks the text rule, or a member named like an `Object.prototype`
 * member (`__proto__`, `constructor`, `toString`, …). Recursive: the caller has bounded the
 * nesting depth first.
 */
export function jsonValueProblem(value: unknown): string | null {
  return inspect(value, []);
}

function inspect(value: unknown, path: (string | number)[]): string | null {
  if (typeof value === 'string')
    return isAcceptableText(value) ? null : `${path.length === 0 ? 'the request body' : fieldPath(path)} ${TEXT_RULE}`;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const problem = inspect(value[i], path);
      if (problem !== null) return problem;
      path.pop();
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const where = path.length === 0 ? 'the request body' : fieldPath(path);
    if (!isAcceptableText(key)) return `member names in ${where} ${TEXT_RULE}`;
    if (isPrototypeMemberName(key)) return `${where} has a member named ${key}, which is not allowed`;
    const member = record[key];
    path.push(key);
    const problem = inspect(member, path);
    if (problem !== null) return problem;
    path.pop();
  }
  return null;
}
