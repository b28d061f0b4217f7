import { expect, test } from '@playwright/test';

test('a node page joins capacity, unhealthy GPUs, replicas and the rejections that name it', async ({ page }) => {
  await page.goto('/nodes');
  await page.getByRole('link', { name: 'gpu-h100-03', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('gpu-h100-03');
  await expect(page.getByRole('heading', { name: 'Unhealthy GPUs' })).toBeVisible();
  await expect(page.getByText('GPU 6: uncorrectable ECC errors')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Rejections that name this node (4)' })).toBeVisible();
  const rejections = page.locator('table.rejections');
  await expect(rejections).toContainText('insufficient disk: needs 55G, 12G free');
  // Each rejection leads to the model's explanation.
  await rejections.getByRole('link', { name: 'google/gemma-2-27b-it' }).click();
  await expect(page).toHaveURL(/\/models\/google%2Fgemma-2-27b-it\/placement/);
});

test('a node id with dots opens, and an unknown node says so', async ({ page }) => {
  await page.goto('/nodes/gpu-l40s-04.rack7.dc-west');
  await expect(page.getByRole('heading', { name: 'Replicas on this node (1)' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: 'r-0005', exact: true })).toBeVisible();
  await page.goto('/nodes/no-such-node');
  await expect(page.getByText('The control plane does not list a node called no-such-node.')).toBeVisible();
});
