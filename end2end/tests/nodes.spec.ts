import { expect, test } from '@playwright/test';
import { hydrated, nodeRow, setNodeStateInSimulator, waitForHydration } from './support';

test('the nodes page shows every column, with dashes for what was not reported', async ({ page }) => {
  await page.goto('/nodes');
  await expect(page.getByRole('heading', { name: 'Nodes' })).toBeVisible();
  await expect(page.getByText('12 nodes')).toBeVisible();
  const headers = page.locator('table.nodes thead th');
  await expect(headers).toHaveText([
    'Node', 'State', 'GPUs', 'Memory', 'Disk', 'Classes', 'Fabrics', 'Replicas', 'Last seen', 'Actions',
  ]);
  const oldAgent = nodeRow(page, 'gpu-a100-04').locator('td');
  await expect(oldAgent.nth(2)).toHaveText('-');
  await expect(oldAgent.nth(3)).toHaveText('-');
  await expect(nodeRow(page, 'gpu-h100-01').locator('td').nth(1)).toHaveText('0/8 free');
  await expect(page.getByText('GPU 5: Xid 79, fallen off the bus')).toBeVisible();
});

test('a state changed in the cluster shows after a refresh', async ({ page }, testInfo) => {
  const node = 'gpu-l40s-01';
  await page.goto('/nodes');
  const state = nodeRow(page, node).locator('.state');
  await expect(state).toHaveText('ready');
  if (hydrated(testInfo)) await waitForHydration(page);
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  try {
    if (hydrated(testInfo)) {
      // No reload: the hydrated page refreshes itself in place.
      await expect(state).toHaveText('cordoned');
      await expect(page.locator('.live-status')).toContainText('updated');
    } else {
      await page.reload();
      await expect(state).toHaveText('cordoned');
    }
  } finally {
    await setNodeStateInSimulator(testInfo, node, 'ready');
  }
});
