import { expect, test } from '@playwright/test';
import { hydrated, waitForHydration } from './support';

test('a filter and a sort survive a reload from the URL', async ({ page }, testInfo) => {
  await page.goto('/nodes');
  if (hydrated(testInfo)) await waitForHydration(page);
  await page.getByRole('searchbox', { name: 'Filter nodes' }).fill('h100');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/q=h100/);
  await expect(page.getByText('4 of 12 nodes')).toBeVisible();
  await page.getByRole('link', { name: 'GPUs' }).click();
  await expect(page).toHaveURL(/sort=gpus/);
  await page.getByRole('link', { name: /GPUs/ }).click();
  await expect(page).toHaveURL(/desc=1/);

  const order = async () => page.locator('tbody tr[data-node]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-node')));
  const before = await order();
  expect(before[0]).toBe('gpu-h100-04'); // 8 free: the most, first when descending
  await page.reload();
  await expect(page.getByText('4 of 12 nodes')).toBeVisible();
  expect(await order()).toEqual(before);
  await expect(page.getByRole('searchbox', { name: 'Filter nodes' })).toHaveValue('h100');
});

test('replicas show shards, idle dashes and errors on their own rows', async ({ page }) => {
  await page.goto('/replicas');
  const starting = page.locator('tr[data-replica="r-0006"]');
  await expect(starting.locator('.shards')).toContainText('gpu-a100-01:[0 1 2 3]');
  await expect(page.getByText('r-0006-s1 on gpu-a100-02: CUDA out of memory')).toBeVisible();
  await expect(page.locator('tr[data-replica="r-0005"] td').nth(5)).toHaveText('-');
  await page.goto('/replicas?errors=1');
  await expect(page.getByText('1 of 7 replicas')).toBeVisible();
});

test('the overview links each figure to the list behind it', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Cluster overview' })).toBeVisible();
  await page.getByRole('link', { name: /unhealthy, on/ }).click();
  await expect(page).toHaveURL(/unhealthy=1/);
  await expect(page.getByText('1 of 12 nodes')).toBeVisible();
  await expect(page.locator('tr[data-node="gpu-h100-03"]')).toBeVisible();
});
