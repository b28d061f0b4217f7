import { cell, cluster, expect, withJs, nodeRow, setNodeStateInSimulator, test, waitForIslands, stateBadge } from './support';

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
  const state = await stateBadge(nodeRow(page, node));
  await expect(state).toHaveText('ready');
  if (withJs(testInfo)) await waitForIslands(page);
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  if (withJs(testInfo)) {
    // No reload: the live document refreshes the page in place.
    await expect(state).toHaveText('cordoned');
    await expect(page.locator('.live-status')).toContainText('updated');
  } else {
    await page.reload();
    await expect(await stateBadge(nodeRow(page, node))).toHaveText('cordoned');
  }
});

test('text selected in a row survives an update that changed another row', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'only the running page updates in place');
  const { nodes } = await cluster(testInfo);
  const [kept, changed] = nodes.filter((n) => n.state === 'ready');
  await page.goto('/nodes');
  await waitForIslands(page);
  // The operator selects a node's name to copy it.
  const selected = await page.evaluate((id) => {
    const link = document.querySelector(`tr[data-node="${id}"] th a`)!;
    const range = document.createRange();
    range.selectNodeContents(link);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    (window as any).selectedNode = link.firstChild;
    return selection.toString();
  }, kept.id);
  expect(selected).toBe(kept.id);
  await setNodeStateInSimulator(testInfo, changed.id, 'cordoned');
  await expect(await stateBadge(nodeRow(page, changed.id))).toHaveText('cordoned');
  // The changed row was updated; the selected one, and its text node, were left alone.
  expect(await page.evaluate(() => window.getSelection()!.toString())).toBe(kept.id);
  expect(await page.evaluate(() => (window as any).selectedNode.isConnected)).toBe(true);
});

test('a row that moves keeps its elements, and never shows another row\'s data', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'only the running page updates in place');
  const { nodes } = await cluster(testInfo);
  // Sorted by state: cordoning a ready node moves it among the cordoned
  // ones, ahead of the draining node, which moves one place down.
  const changed = nodes.find((n) => n.state === 'ready')!;
  const kept = nodes.find((n) => n.state === 'draining')!;
  await page.goto('/nodes?sort=state');
  await waitForIslands(page);
  const rows = () => page.locator('tbody tr[data-node]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-node')));
  const before = await rows();
  await page.evaluate((id) => {
    const row = document.querySelector(`tr[data-node="${id}"]`)!;
    (window as any).keptRow = row;
    (window as any).keptText = row.querySelector('th a')!.firstChild;
  }, kept.id);
  await setNodeStateInSimulator(testInfo, changed.id, 'cordoned');
  await expect(await stateBadge(nodeRow(page, changed.id))).toHaveText('cordoned');
  const after = await rows();
  expect(after.indexOf(kept.id)).toBe(before.indexOf(kept.id) + 1);
  // The same row element, moved, with the same text node: a table patched
  // by position would have written the node before it into it.
  expect(await page.evaluate((id) => document.querySelector(`tr[data-node="${id}"]`) === (window as any).keptRow, kept.id)).toBe(true);
  expect(await page.evaluate(() => (window as any).keptText.data)).toBe(kept.id);
});
