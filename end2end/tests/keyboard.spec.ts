import { expect, withJs, nodeRow, open, test, waitForIslands } from './support';

test.beforeEach(async ({}, testInfo) => {
  test.skip(!withJs(testInfo), 'keyboard shortcuts run with the page');
});

test('/ focuses the filter, Enter filters, Esc clears it; keys typed there stay there', async ({ page }, testInfo) => {
  await open(page, testInfo, '/nodes');
  const filter = page.locator(".filter-bar input[type='search']");
  await page.keyboard.press('/');
  await expect(filter).toBeFocused();
  // Typing a shortcut's keys in the field is just typing.
  await page.keyboard.type('g/n');
  await expect(filter).toHaveValue('g/n');
  await expect(page).toHaveURL(/\/nodes$/);
  await filter.fill('h100');
  await page.keyboard.press('Enter');
  // The filter form loads the page anew; its keys work once it runs again.
  await expect(page).toHaveURL(/[?&]q=h100/);
  await waitForIslands(page);
  await page.keyboard.press('/');
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/\/nodes$/);
  await expect(filter).toHaveValue('');
});

test('g then a letter goes to a page', async ({ page }, testInfo) => {
  await open(page, testInfo, '/');
  for (const [letter, path] of [['n', '/nodes'], ['m', '/models'], ['r', '/replicas'], ['w', '/weights'], ['a', '/audit'], ['o', '/']]) {
    await page.keyboard.press('g');
    await page.keyboard.press(letter);
    await expect(page).toHaveURL(new RegExp(`${path.replace('/', '\\/')}$`));
    // Each page is a new document: its keys work once it runs.
    await waitForIslands(page);
  }
});

test('j and k move between rows and Enter opens one', async ({ page }, testInfo) => {
  await open(page, testInfo, '/nodes');
  const rows = page.locator('main table.data > tbody > tr[data-node]');
  const second = await rows.nth(1).getAttribute('data-node');
  await page.keyboard.press('j');
  await expect(rows.nth(0)).toHaveAttribute('data-kbd-current', '');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await expect(nodeRow(page, second!)).toHaveAttribute('data-kbd-current', '');
  await expect(page.locator('[data-kbd-current]')).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/nodes/${encodeURIComponent(second!)}$`));
});

test('Esc closes a dialog; ? lists the shortcuts and Esc closes that too', async ({ page }, testInfo) => {
  await open(page, testInfo, '/nodes');
  const node = await page.locator('main table.data > tbody > tr[data-node]').first().getAttribute('data-node');
  await open(page, testInfo, `/nodes?confirm=drain&node=${encodeURIComponent(node!)}`);
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // Back on the page, at the link that opens the dialog.
  await expect(page).toHaveURL(new RegExp(`/nodes#drain-${encodeURIComponent(node!)}$`));

  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help).toContainText('Go to Nodes');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
});
