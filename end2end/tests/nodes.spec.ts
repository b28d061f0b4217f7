import { cell, cluster, expect, hydrated, nodeRow, setNodeStateInSimulator, test, waitForHydration } from './support';

test('the nodes page shows every column, with dashes for what was not reported', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  await page.goto('/nodes');
  await expect(page.getByRole('heading', { name: 'Nodes' })).toBeVisible();
  await expect(page.locator('.filter-bar .count')).toHaveText(`${nodes.length} nodes`);
  const headers = page.locator('table.nodes thead th');
  await expect(headers).toHaveText([
    'Node', 'State', 'GPUs', 'Memory', 'Disk', 'Classes', 'Fabrics', 'Replicas', 'Last seen', 'Actions',
  ]);
  const oldAgent = nodes.find((n) => n.memory_gb === 0 && n.disk_total_gb === 0)!;
  await expect(await cell(nodeRow(page, oldAgent.id), 'Memory')).toHaveText('-');
  await expect(await cell(nodeRow(page, oldAgent.id), 'Disk')).toHaveText('-');
  for (const n of nodes) {
    await expect(await cell(nodeRow(page, n.id), 'GPUs')).toHaveText(`${n.gpu_free}/${n.gpu_total} free`);
  }
  const sick = nodes.find((n) => n.unhealthy.length > 0)!;
  await expect(page.locator('tr.unhealthy').filter({ hasText: sick.unhealthy[0] })).toBeVisible();
});

test('a state changed in the cluster shows after a refresh', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  await page.goto('/nodes');
  const state = await cell(nodeRow(page, node), 'State');
  await expect(state).toHaveText('ready');
  if (hydrated(testInfo)) await waitForHydration(page);
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  if (hydrated(testInfo)) {
    // No reload: the hydrated page refreshes itself in place.
    await expect(state).toHaveText('cordoned');
    await expect(page.locator('.live-status')).toContainText('updated');
  } else {
    await page.reload();
    await expect(await cell(nodeRow(page, node), 'State')).toHaveText('cordoned');
  }
});
