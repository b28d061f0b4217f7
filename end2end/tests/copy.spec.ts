import { expect, withJs, open, test } from './support';

test('copy buttons copy the llmgw ctl command and the link to this view', async ({ page, context }, testInfo) => {
  await open(page, testInfo, '/nodes');
  const node = (await page.locator('main table.data > tbody > tr[data-node]').first().getAttribute('data-node'))!;
  const view = `/nodes?q=gpu&confirm=cordon&node=${encodeURIComponent(node)}`;
  await open(page, testInfo, view);
  const ctl = page.locator('.dialog .ctl');
  // It names the cluster's admin API: a pasted command acts on this cluster.
  const command = new RegExp(`^llmgw ctl --server http://127\\.0\\.0\\.1:\\d+ cordon ${node}$`);
  await expect(ctl.locator('code')).toHaveText(command);
  if (!withJs(testInfo)) {
    // Nothing to click that could not work: the command is there to select.
    await expect(page.locator('button.copy')).toHaveCount(0);
    return;
  }
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await ctl.locator('button.copy').click();
  await expect(ctl.locator('button.copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(command);
  // The link of the view on screen, filter and sort included.
  await open(page, testInfo, '/nodes?q=gpu&sort=gpus&desc=1');
  await page.locator('header.top button.copy').click();
  await expect(page.locator('header.top button.copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(page.url());
  expect(new URL(page.url()).search).toBe('?q=gpu&sort=gpus&desc=1');
});
