import { mergeRulesProblem, requiresApprovedReview, withApprovalRule, withoutNamedUsers, type MergeRules } from './merge-rules';

const approval: MergeRules = { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] };

describe('merge rules', () => {
  it("accept the platform's shapes, inherit only where it is allowed", () => {
    expect(mergeRulesProblem({ type: 'none' }, 'mergeRules', { inherit: false })).toBeNull();
    expect(
      mergeRulesProblem(
        {
          type: 'rules',
          rules: [
            { rule: 'custom', expression: 'true', message: 'm' },
            { rule: 'allow_bypass', users: ['u1'] },
          ],
        },
        'mergeRules',
        { inherit: false },
      ),
    ).toBeNull();
    expect(mergeRulesProblem({ type: 'inherit' }, 'mergeRules', { inherit: true })).toBeNull();
    expect(mergeRulesProblem({ type: 'inherit' }, 'mergeRules', { inherit: false })).toMatch(/^mergeRules must be/);
  });

  it.each(['__proto__', 'constructor', 'toString'])('refuse a rule named %s, which is no rule', (rule) => {
    expect(mergeRulesProblem({ type: 'rules', rules: [{ rule }] }, 'mergeRules', { inherit: true })).toMatch(
      /mergeRules\.rules\[0\]\.rule must be one of/,
    );
  });

  it('refuse non-objects without throwing', () => {
    for (const value of [null, undefined, 'none', 1, [], { type: 'rules', rules: [null] }])
      expect(mergeRulesProblem(value, 'mergeRules', { inherit: true })).toEqual(expect.any(String));
  });

  it('read the approval setting as the require_at_least_one_approved_review rule, keeping the other rules', () => {
    const subject: MergeRules = { type: 'rules', rules: [{ rule: 'require_change_request_subject' }] };
    expect(withApprovalRule(subject, true)).toEqual({
      type: 'rules',
      rules: [{ rule: 'require_change_request_subject' }, { rule: 'require_at_least_one_approved_review' }],
    });
    expect(withApprovalRule(withApprovalRule(subject, true), false)).toEqual(subject);
    expect(withApprovalRule(approval, false)).toEqual({ type: 'none' });
    expect(requiresApprovedReview(withApprovalRule({ type: 'none' }, true))).toBe(true);
  });

  it('hide the user ids rules name, keeping the rules', () => {
    expect(
      withoutNamedUsers({
        type: 'rules',
        rules: [{ rule: 'require_specific_reviewers', users: ['u1'] }, { rule: 'require_agent_review' }],
      }),
    ).toEqual({
      type: 'rules',
      rules: [{ rule: 'require_specific_reviewers', users: [] }, { rule: 'require_agent_review' }],
    });
    expect(withoutNamedUsers({ type: 'inherit' })).toEqual({ type: 'inherit' });
  });
});
