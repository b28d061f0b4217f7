import AxeBuilder from '@axe-core/playwright';
import { everyView, expect, withJs, open, test } from './support';
import type { BrowserContext, Page } from '@playwright/test';

/** What axe-core finds on the page as it is now, one line per rule and the
 * first few elements it names. */
async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`,
  );
}

/** axe-core runs as a script in the page, which a browser with JavaScript
 * off cannot run; so "JavaScript off" here is a browser that refuses the
 * console's own scripts (the page stays as the server rendered it). */
async function withoutConsoleScripts(context: BrowserContext) {
  await context.route(/\/pkg\/.*\.(js|wasm)$/, (route) => route.abort());
}

for (const theme of ['light', 'dark']) {
  test(`axe finds no violation on any page or dialog, ${theme} theme`, async ({ browser, baseURL }, testInfo) => {
    test.setTimeout(180_000);
    const context = await browser.newContext({ baseURL, javaScriptEnabled: true });
    if (!withJs(testInfo)) await withoutConsoleScripts(context);
    await context.addCookies([{ name: 'llmgw_theme', value: theme, url: baseURL! }]);
    const page = await context.newPage();
    for (const path of await everyView(testInfo)) {
      await open(page, testInfo, path);
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      expect(await violations(page), `${path} (${theme})`).toEqual([]);
    }
    if (withJs(testInfo)) {
      // The list of keyboard shortcuts is a dialog of its own.
      await open(page, testInfo, '/nodes');
      await page.keyboard.press('?');
      await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
      expect(await violations(page), `shortcuts (${theme})`).toEqual([]);
    } else {
      expect(await page.evaluate(() => document.documentElement.hasAttribute('data-islands-ready'))).toBe(false);
    }
    // A menu open: the column chooser.
    await open(page, testInfo, '/nodes');
    await page.locator('.columns-menu summary').click();
    await expect(page.getByRole('button', { name: 'Show these' })).toBeVisible();
    expect(await violations(page), `column chooser (${theme})`).toEqual([]);
    await context.close();
  });
}
