import { ValidateBy } from 'class-validator';

/**
 * An integration's `contentSecurityPolicy`, as the platform takes it: a policy as text, or an object
 * of directives (`{ 'connect-src': 'https://api.example.com' }`). It is kept as given and returned
 * as given; where it applies (the Content-Security-Policy header of render answers, the script's
 * fetches) it is read as text (policyText).
 */
export const CSP_DIRECTIVES = [
  'base-uri',
  'block-all-mixed-content',
  'child-src',
  'connect-src',
  'default-src',
  'font-src',
  'form-action',
  'frame-ancestors',
  'frame-src',
  'img-src',
  'manifest-src',
  'media-src',
  'navigate-to',
  'object-src',
  'plugin-types',
  'prefetch-src',
  'referrer',
  'report-to',
  'report-uri',
  'require-sri-for',
  'require-trusted-types-for',
  'sandbox',
  'script-src',
  'script-src-attr',
  'script-src-elem',
  'style-src',
  'style-src-attr',
  'style-src-elem',
  'trusted-types',
  'upgrade-insecure-requests',
  'worker-src',
] as const;
export type CspDirective = (typeof CSP_DIRECTIVES)[number];
export type ContentSecurityPolicy = string | Partial<Record<CspDirective, string>>;

export const MAX_POLICY_LENGTH = 4000;
export const MAX_DIRECTIVE_VALUE_LENGTH = 1000;

/**
 * What is wrong with a policy, or null. The text may not break a header line (CR, LF); a
 * directive's value may not end the directive (`;`) or start another policy (`,`): it would say
 * more than the member named.
 */
export function policyProblem(value: unknown): string | null {
  const at = 'contentSecurityPolicy';
  if (typeof value === 'string') {
    if (value.length > MAX_POLICY_LENGTH) return `${at} must be at most ${MAX_POLICY_LENGTH} characters`;
    return /[\r\n]/.test(value) ? `${at} must be one line` : null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `${at} must be a policy (text) or an object of directives`;
  for (const [directive, source] of Object.entries(value)) {
    if (!(CSP_DIRECTIVES as readonly string[]).includes(directive))
      return `${at}.${directive.slice(0, 50)} is not a directive (${CSP_DIRECTIVES.join(', ')})`;
    if (typeof source !== 'string') return `${at}.${directive} must be a string`;
    if (source.length > MAX_DIRECTIVE_VALUE_LENGTH) return `${at}.${directive} must be at most ${MAX_DIRECTIVE_VALUE_LENGTH} characters`;
    if (/[;,\r\n]/.test(source)) return `${at}.${directive} may not contain ';', ',' or a line break`;
  }
  return null;
}

export function IsContentSecurityPolicy(): PropertyDecorator {
  return ValidateBy({
    name: 'isContentSecurityPolicy',
    validator: {
      validate: (value: unknown) => policyProblem(value) === null,
      defaultMessage: (args) => policyProblem(args?.value) ?? 'contentSecurityPolicy is invalid',
    },
  });
}

/** The policy as a header's text: an object's directives in the order given, `name value` joined by `; `. */
export function policyText(policy: ContentSecurityPolicy | null | undefined): string | null {
  if (policy === null || policy === undefined) return null;
  if (typeof policy === 'string') return policy;
  const text = Object.entries(policy)
    .map(([directive, source]) => `${directive} ${source}`.trim())
    .join('; ');
  return text === '' ? null : text;
}
