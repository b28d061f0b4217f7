import { expect, withJs, open, test } from './support';

// Focus goes where the hands are: into a dialog when it opens, around inside
// it while it is open, and back to what opened it when it closes.

test('a node dialog opens with focus in its reason field; Tab stays inside; closing it gives focus back', async ({ page }, testInfo) => {
  await open(page, testInfo, '/nodes');
  const opener = page.locator('main a.button', { hasText: 'Cordon' }).first();
  const id = await opener.getAttribute('id');
  expect(id).toBeTruthy();
  await opener.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('input[name="reason"]')).toBeFocused();
  // The Cancel link names the opener, with JavaScript or without.
  await expect(dialog.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', new RegExp(`#${id}$`));
  if (!withJs(testInfo)) return;
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
  for (let i = 0; i < 15; i++) {
    await page.keyboard.press(i % 5 === 4 ? 'Shift+Tab' : 'Tab');
    const inside = await page.evaluate(() => !!document.activeElement?.closest('.dialog'));
    expect(inside, `Tab ${i + 1} left the dialog`).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.locator(`[id="${id}"]`)).toBeFocused();
});

test('the collection dialog opens with focus on Cancel', async ({ page }, testInfo) => {
  await open(page, testInfo, '/weights?confirm=collect');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('link', { name: 'Cancel' })).toBeFocused();
});

test('the first Tab reaches a skip link that lands past the header', async ({ page }, testInfo) => {
  await open(page, testInfo, '/nodes');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to the page' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);
  await expect(page.locator('main')).toBeFocused();
});
