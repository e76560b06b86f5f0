// The accessibility check the browser tests run on each state of a page: axe-core (Deque's rules
// engine, the one Lighthouse and the browsers' developer tools use) with the WCAG 2.0 and 2.1 A and AA
// rules and axe's best practices. A violation fails the test, named with the elements it found, so a
// change that breaks a label, a contrast or an ARIA role is caught where the page is already open.
import { AxeBuilder } from '@axe-core/playwright';
import type { ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';

/** The rule sets checked: WCAG 2.1 level AA (with the 2.0 rules it includes) and axe's best practices. */
export const accessibilityTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] as const;

/** One violation as a line a person can act on: the rule, its impact, and where. */
export interface AccessibilityProblem {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** What axe finds on the page as it is now (`within`: only that part of it). */
export async function accessibilityProblems(page: Page, within?: string): Promise<AccessibilityProblem[]> {
  let builder = new AxeBuilder({ page }).withTags([...accessibilityTags]);
  if (within !== undefined) builder = builder.include(within);
  const { violations } = await builder.analyze();
  return violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact ?? 'unknown',
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

/** Fails `t` with every violation axe finds on the page in `state` (a few words naming what is shown). */
export async function assertAccessible(t: ExecutionContext, page: Page, state: string, within?: string): Promise<void> {
  const problems = await accessibilityProblems(page, within);
  t.deepEqual(
    problems.map((problem) => `${problem.rule} (${problem.impact}): ${problem.help}: ${problem.targets.join(', ')}`),
    [],
    `accessibility of ${state}`,
  );
}
