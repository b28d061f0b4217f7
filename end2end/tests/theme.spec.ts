import { BASE, expect, withJs, open, test, waitForIslands } from './support';

const DARK_BG = 'rgb(13, 18, 24)';
const LIGHT_BG = 'rgb(247, 248, 250)';

test('the dark theme is in the page the server sends, so it paints dark from the start', async ({ page, context, baseURL }, testInfo) => {
  await context.addCookies([{ name: 'llmgw_theme', value: 'dark', url: baseURL! }]);
  // The HTML itself names the theme, and the stylesheet is in its head:
  // nothing waits for a script to turn the page dark.
  const response = await page.request.get('/nodes');
  const html = await response.text();
  expect(html).toMatch(/<html[^>]* data-theme="dark"/);
  expect(html.indexOf('llmgw-console.css')).toBeLessThan(html.indexOf('<body'));
  await open(page, testInfo, '/nodes');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(DARK_BG);
});

test('with no choice made, the system preference decides', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(page, testInfo, '/models');
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /.*/);
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(DARK_BG);
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(LIGHT_BG);
});

test('the switch goes auto, dark, light, auto and comes back to the same view', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const view = '/nodes?q=gpu&sort=id&desc=1';
  await open(page, testInfo, view);
  const switcher = page.locator('header.top a.theme');
  await expect(switcher).toHaveText('Theme: auto');
  for (const [word, bg] of [['dark', DARK_BG], ['light', LIGHT_BG]]) {
    await switcher.click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', word);
    await expect(switcher).toHaveText(`Theme: ${word}`);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`${BASE}${view}`);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(bg);
    if (withJs(testInfo)) await waitForIslands(page);
  }
  await switcher.click();
  await expect(switcher).toHaveText('Theme: auto');
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /.*/);
  // A reload keeps the choice, since it is in the cookie.
  await switcher.click();
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});
