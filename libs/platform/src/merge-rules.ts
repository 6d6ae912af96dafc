import { ValidateBy } from 'class-validator';
import { ID_PATTERN } from './ids';
import { closedObject, type JsonSchema } from './platform.schemas';

/**
 * Merge rules: what a change request needs before it may be merged, in the platform's shapes
 * (`MergeRulesStandaloneConfiguration` on organizations, `MergeRulesSpaceConfiguration` on spaces,
 * which may also `inherit` the organization's). Organizations and spaces both hold them, so the
 * shapes and their validation live here.
 *
 * Of the rules, the service enforces `require_at_least_one_approved_review` on the organization
 * (the same setting as its `changeRequestsRequireApproval` extension); the others are kept and
 * answered back as they were set.
 */
export const RULES_WITH_USERS = ['require_specific_reviewers', 'require_one_of_specific_reviewers', 'allow_bypass'] as const;
export const PLAIN_RULES = [
  'require_at_least_one_review',
  'require_at_least_one_approved_review',
  'require_all_reviews_approved',
  'require_agent_review',
  'require_up_to_date_change_request',
  'require_change_request_subject',
  'require_change_request_description',
  'require_author_to_merge',
] as const;

export type MergeRule =
  | { rule: (typeof RULES_WITH_USERS)[number]; users: string[] }
  | { rule: (typeof PLAIN_RULES)[number] }
  | { rule: 'custom'; expression: string; message?: string };

/** An organization's merge rules (and a space's own). */
export type MergeRules = { type: 'none' } | { type: 'rules'; rules: MergeRule[] };
/** A space's merge rules: its own, or the organization's (`inherit`). */
export type SpaceMergeRules = MergeRules | { type: 'inherit' };

export const NO_MERGE_RULES: MergeRules = { type: 'none' };
export const INHERITED_MERGE_RULES: SpaceMergeRules = { type: 'inherit' };

/** The rule behind the organization's `changeRequestsRequireApproval`. */
export const APPROVAL_RULE = 'require_at_least_one_approved_review';

export const MAX_MERGE_RULES = 50;
export const MAX_RULE_USERS = 100;
export const MAX_RULE_EXPRESSION = 1024;
export const MAX_RULE_MESSAGE = 1024;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const includes = (list: readonly string[], value: unknown): boolean => typeof value === 'string' && list.includes(value);

/** What is wrong with one rule of `field.rules[index]`, or null. */
function ruleProblem(value: unknown, at: string): string | null {
  if (!isRecord(value)) return `${at} must be an object { rule, … }`;
  const rule = value.rule;
  const allowed = (members: readonly string[]) => Object.keys(value).find((key) => !members.includes(key));
  if (includes(RULES_WITH_USERS, rule)) {
    const extra = allowed(['rule', 'users']);
    if (extra !== undefined) return `${at}.${extra.slice(0, 32)} is not allowed for rule ${String(rule)}`;
    const users = value.users;
    if (!Array.isArray(users) || users.length > MAX_RULE_USERS) return `${at}.users must be a list of at most ${MAX_RULE_USERS} user ids`;
    if (!users.every((user) => typeof user === 'string' && ID_PATTERN.test(user))) return `${at}.users must hold user ids`;
    return null;
  }
  if (includes(PLAIN_RULES, rule)) {
    const extra = allowed(['rule']);
    return extra === undefined ? null : `${at}.${extra.slice(0, 32)} is not allowed for rule ${String(rule)}`;
  }
  if (rule === 'custom') {
    const extra = allowed(['rule', 'expression', 'message']);
    if (extra !== undefined) return `${at}.${extra.slice(0, 32)} is not allowed for rule custom`;
    if (typeof value.expression !== 'string' || value.expression.length > MAX_RULE_EXPRESSION)
      return `${at}.expression must be a string of at most ${MAX_RULE_EXPRESSION} characters`;
    if (value.message !== undefined && (typeof value.message !== 'string' || value.message.length > MAX_RULE_MESSAGE))
      return `${at}.message must be a string of at most ${MAX_RULE_MESSAGE} characters`;
    return null;
  }
  return `${at}.rule must be one of ${[...RULES_WITH_USERS, ...PLAIN_RULES, 'custom'].join(', ')}`;
}

/**
 * What is wrong with a `mergeRules` value, or null: `{ type: 'none' }`, `{ type: 'rules', rules }`
 * and, where `inherit` is allowed (spaces), `{ type: 'inherit' }`.
 */
export function mergeRulesProblem(value: unknown, field: string, options: { inherit: boolean }): string | null {
  const types = options.inherit ? ['inherit', 'rules', 'none'] : ['rules', 'none'];
  const shape = `${field} must be ${types.map((type) => (type === 'rules' ? "{ type: 'rules', rules: [...] }" : `{ type: '${type}' }`)).join(' or ')}`;
  if (!isRecord(value) || !includes(types, value.type)) return shape;
  const members = value.type === 'rules' ? ['type', 'rules'] : ['type'];
  const extra = Object.keys(value).find((key) => !members.includes(key));
  if (extra !== undefined) return `${field}.${extra.slice(0, 32)} is not allowed`;
  if (value.type !== 'rules') return null;
  if (!Array.isArray(value.rules) || value.rules.length > MAX_MERGE_RULES)
    return `${field}.rules must be a list of at most ${MAX_MERGE_RULES} rules`;
  for (const [index, rule] of value.rules.entries()) {
    const problem = ruleProblem(rule, `${field}.rules[${index}]`);
    if (problem) return problem;
  }
  return null;
}

/** A copy of validated merge rules holding only the members of their shape (never the request's own object). */
export function mergeRulesOf<T extends SpaceMergeRules>(value: T): T {
  if (value.type !== 'rules') return { type: value.type } as T;
  const rules = value.rules.map((rule): MergeRule => {
    if (rule.rule === 'custom')
      return rule.message === undefined
        ? { rule: 'custom', expression: rule.expression }
        : { rule: 'custom', expression: rule.expression, message: rule.message };
    if ('users' in rule) return { rule: rule.rule, users: [...rule.users] };
    return { rule: rule.rule };
  });
  return { type: 'rules', rules } as T;
}

/** Whether change requests need an approved review under these rules (the one rule the service enforces). */
export function requiresApprovedReview(rules: SpaceMergeRules): boolean {
  return rules.type === 'rules' && rules.rules.some((rule) => rule.rule === APPROVAL_RULE);
}

/**
 * The rules with the approval rule added (`required`) or taken out: how the organization's
 * `changeRequestsRequireApproval` extension reads as merge rules. Without any rule left, `none`.
 */
export function withApprovalRule(rules: MergeRules, required: boolean): MergeRules {
  if (required === requiresApprovedReview(rules)) return rules;
  const others = rules.type === 'rules' ? rules.rules.filter((rule) => rule.rule !== APPROVAL_RULE) : [];
  if (required) return { type: 'rules', rules: [...others, { rule: APPROVAL_RULE }] };
  return others.length === 0 ? NO_MERGE_RULES : { type: 'rules', rules: others };
}

/** class-validator rule for a `mergeRules` body member (the message names what is wrong). */
export function IsMergeRules(options: { inherit: boolean }): PropertyDecorator {
  return ValidateBy({
    name: 'isMergeRules',
    validator: {
      validate: (value: unknown, args) => mergeRulesProblem(value, args?.property ?? 'mergeRules', options) === null,
      defaultMessage: (args) => mergeRulesProblem(args?.value, args?.property ?? 'mergeRules', options) ?? 'mergeRules is invalid',
    },
  });
}

/** The response schema of merge rules (OpenAPI 3.0), `inherit` included for spaces. */
export function mergeRulesSchema(options: { inherit: boolean }): JsonSchema {
  const typed = (type: string, more: Record<string, JsonSchema> = {}) => closedObject({ type: { type: 'string', enum: [type] }, ...more });
  const rule: JsonSchema = {
    oneOf: [
      closedObject({
        rule: { type: 'string', enum: [...RULES_WITH_USERS] },
        users: { type: 'array', items: { type: 'string' }, description: 'user ids' },
      }),
      closedObject({ rule: { type: 'string', enum: [...PLAIN_RULES] } }),
      closedObject(
        {
          rule: { type: 'string', enum: ['custom'] },
          expression: { type: 'string', maxLength: MAX_RULE_EXPRESSION },
          message: { type: 'string' },
        },
        ['message'],
      ),
    ],
  };
  return {
    oneOf: [...(options.inherit ? [typed('inherit')] : []), typed('rules', { rules: { type: 'array', items: rule } }), typed('none')],
    description: `what a change request needs before it is merged; the service enforces ${APPROVAL_RULE} set on the organization`,
  };
}

/**
 * The rules as someone who may not list the organization's members sees them (guests, people
 * outside it reading a public space or an integration's owner): which rules apply, without the
 * user ids they name.
 */
export function withoutNamedUsers<T extends SpaceMergeRules>(rules: T): T {
  if (rules.type !== 'rules' || !rules.rules.some((rule) => 'users' in rule && rule.users.length > 0)) return rules;
  return { type: 'rules', rules: rules.rules.map((rule) => ('users' in rule ? { rule: rule.rule, users: [] } : rule)) } as T;
}
