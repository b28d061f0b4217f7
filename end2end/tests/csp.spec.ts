import { everyView, expect, withJs, test, waitForIslands } from './support';

// Every page, its islands running under the console's Content Security Policy (scripts
// only by nonce or from its own files): no violation, no console error.
test('every page runs its islands under the policy with no violation and no console error', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'the policy is about scripts');
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  // The not-found page answers 404, which the browser logs as an error.
  const paths = (await everyView(testInfo)).filter((path) => path !== '/no-such-page');
  for (const path of paths) {
    await page.goto(path);
    await waitForIslands(page);
    // A moment for anything the islands run after the first paint.
    await page.waitForTimeout(300);
    expect(problems, path).toEqual([]);
  }
});
