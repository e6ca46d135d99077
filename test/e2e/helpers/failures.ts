/**
 * What a real-VS-Code suite keeps when a test fails: a screenshot named after the test and the attempt.
 * On CI a failed UI test is retried once (scripts/test/run.js --retries); mocha leaves the failed
 * attempt's `state` unset while a retry is pending, so "failed" here is anything but passed or pending,
 * and the attempt is in the name, so the retry never overwrites the first failure's screenshot.
 */
import type { Page } from 'playwright-core';
import { screenshot } from './workbench';

/** Whether the test that just ran failed: finally, or on an attempt mocha will retry. */
export function failedNow(test: Mocha.Test | undefined): boolean {
  return !!test && test.state !== 'passed' && test.state !== 'pending' && !test.isPending();
}

/** `failed-<title>` for the first attempt, `failed-<title>-attempt2` for a retry. */
export function failureName(prefix: string, test: Mocha.Test): string {
  // currentRetry() is public in mocha, protected in @types/mocha.
  const attempt = (test as unknown as { currentRetry(): number }).currentRetry() + 1;
  return `${prefix}failed-${test.title.replace(/\W+/g, '-').slice(0, 60)}${attempt > 1 ? `-attempt${attempt}` : ''}`;
}

/**
 * For a suite's afterEach: on a failure, the screenshot, and the page brought back to a known state
 * (no quick input or hover left open) for the next test or the retry. Returns whether the test failed.
 */
export async function onTestEnd(page: Page | undefined, test: Mocha.Test | undefined, prefix = ''): Promise<boolean> {
  if (!failedNow(test)) return false;
  if (page) {
    await screenshot(page, failureName(prefix, test!)).catch(() => undefined);
    for (let i = 0; i < 2; i++) await page.keyboard.press('Escape').catch(() => undefined);
    await page.mouse.move(5, 5).catch(() => undefined);
  }
  return true;
}
