import { expect, test } from '@playwright/test';
import { hydrated, nodeRow, waitForHydration } from './support';

// These change the simulated cluster; they run in order within a project.
test.describe.configure({ mode: 'serial' });

test('a drain shows its preview, is confirmed, and the node drains', async ({ page }, testInfo) => {
  const node = 'gpu-l40s-03';
  await page.goto('/nodes');
  if (hydrated(testInfo)) await waitForHydration(page);
  await nodeRow(page, node).getByRole('link', { name: `Drain ${node}` }).click();

  const dialog = page.getByRole('dialog', { name: `Drain ${node}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('1 replica moves');
  await expect(dialog).toContainText('r-0004');
  await expect(dialog.locator('code').filter({ hasText: `llmgw ctl drain ${node}` })).toBeVisible();
  await dialog.getByRole('button', { name: `Drain ${node}` }).click();

  await expect(page.getByRole('status')).toContainText(`${node} is now draining`);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(nodeRow(page, node).locator('.state')).toHaveText('draining');
  // The simulator moves the replica off within a few seconds.
  await expect(async () => {
    await page.goto('/nodes');
    await expect(nodeRow(page, node).locator('td').nth(6)).toHaveText('0', { timeout: 500 });
  }).toPass({ timeout: 15_000 });
});

test('uncordon needs no confirmation', async ({ page }, testInfo) => {
  const node = 'gpu-l40s-03';
  await page.goto('/nodes');
  if (hydrated(testInfo)) await waitForHydration(page);
  await nodeRow(page, node).getByRole('button', { name: `Uncordon ${node}` }).click();
  await expect(page.getByRole('status')).toContainText(`${node} is now ready`);
  await expect(nodeRow(page, node).locator('.state')).toHaveText('ready');
});

test('collecting one node: confirmed, asked to remove, gone from the list', async ({ page }, testInfo) => {
  await page.goto('/weights');
  if (hydrated(testInfo)) await waitForHydration(page);
  await page.getByRole('link', { name: 'Collect on gpu-a100-01' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Mixtral-8x7B-Instruct-v0.1/model-00001-of-00002.safetensors');
  await expect(dialog).toContainText('27.4 GB');
  await dialog.getByRole('button', { name: /Delete 2 files/ }).click();
  await expect(page.getByRole('status')).toContainText('gpu-a100-01: asked to remove 2 files, 27.4 GB');
  await expect(page.locator('tr[data-node="gpu-a100-01"]')).toHaveCount(0);
});

test('collecting every node shows a refusing node beside the others', async ({ page }, testInfo) => {
  await page.goto('/weights');
  if (hydrated(testInfo)) await waitForHydration(page);
  await page.getByRole('link', { name: 'Collect on every node…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Collect orphaned weights on every node?' });
  await expect(dialog).toContainText('3 nodes');
  await dialog.getByRole('button', { name: /Delete 5 files/ }).click();
  const receipt = page.getByRole('status');
  await expect(receipt).toContainText('gpu-h100-01: asked to remove 3 files, 141.9 GB');
  await expect(receipt.locator('.refused')).toContainText('gpu-a100-04: refused');
  await expect(receipt).toContainText('Each node checks every path again');
  // Only what the refusing node kept is left.
  await expect(page.locator('tbody tr[data-node]')).toHaveCount(1);
  await expect(page.locator('tr[data-node="gpu-a100-04"]')).toBeVisible();
});
