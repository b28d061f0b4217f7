import { expect, test } from '@playwright/test';
import { hydrated, waitForHydration } from './support';

test('model names with slashes, colons and dots open their explain page from a pasted URL', async ({ page }) => {
  for (const [url, name] of [
    ['/models/meta-llama%2FLlama-3.1-70B-Instruct/placement', 'meta-llama/Llama-3.1-70B-Instruct'],
    ['/models/meta-llama/Llama-3.1-70B-Instruct/placement', 'meta-llama/Llama-3.1-70B-Instruct'],
    ['/models/qwen2.5:7b/placement', 'qwen2.5:7b'],
    ['/models/acme%2Fsupport%20bot%3Av2/placement', 'acme/support bot:v2'],
  ]) {
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  }
  await page.goto('/models/qwen2.5%3A7b/placement');
  await expect(page.locator('.verdict')).toHaveText('Placed. No candidate was turned down.');
});

test('the grouping and filter of an explanation survive a shared link', async ({ page }, testInfo) => {
  await page.goto('/models/deepseek-ai%2FDeepSeek-V3/placement');
  await expect(page.locator('.verdict')).toContainText('Not placed');
  if (hydrated(testInfo)) await waitForHydration(page);
  await page.getByRole('link', { name: 'By reason' }).click();
  await expect(page).toHaveURL(/group=reason/);
  await expect(page.locator('.by-reason .group').first()).toContainText('×');
  await page.getByRole('searchbox', { name: 'Filter rejections' }).fill('h100-03');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/q=h100-03/);
  await expect(page.getByText('2 of 8 rejections')).toBeVisible();

  // Whoever opens the link sees exactly this.
  const shared = page.url();
  const other = await page.context().newPage();
  await other.goto(shared);
  await expect(other.locator('.by-reason')).toBeVisible();
  await expect(other.getByText('2 of 8 rejections')).toBeVisible();
  // Each rejected node is shown as it is now, beside the reason.
  await expect(other.locator('.live-node').first()).toContainText('6/8 free');
  await other.close();
});

test('not placed links to the explanation, and by-node grouping names each node', async ({ page }) => {
  await page.goto('/models?status=not-placed');
  await expect(page.getByText('3 of 9 models')).toBeVisible();
  await page.locator('tr[data-model="google/gemma-2-27b-it"]').getByRole('link', { name: 'why?' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('google/gemma-2-27b-it');
  await page.getByRole('link', { name: 'By node' }).click();
  await expect(page.locator('.by-node .group')).toHaveCount(6);
  await page.reload();
  await expect(page.locator('.by-node .group')).toHaveCount(6);
});
