import { cell, cluster, collectInSimulator, expect, fileSize, withJs, nodeRow, test, waitForIslands, stateBadge } from './support';

test('a drain shows its preview, is confirmed, and the node drains', async ({ page }, testInfo) => {
  const { nodes, replicas } = await cluster(testInfo);
  // A ready node with exactly one replica, which the simulator can move.
  const node = nodes.find((n) => n.state === 'ready' && replicas.filter((r) => r.shards.some((s) => s.node === n.id)).length === 1)!.id;
  const moving = replicas.find((r) => r.shards.some((s) => s.node === node))!;
  await page.goto('/nodes');
  if (withJs(testInfo)) await waitForIslands(page);
  await nodeRow(page, node).getByRole('link', { name: `Drain ${node}` }).click();

  const dialog = page.getByRole('dialog', { name: `Drain ${node}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.drain-preview h3')).toHaveText('1 replica moves');
  await expect(dialog.locator('.moving')).toContainText(moving.id);
  await expect(dialog.locator('code').filter({ hasText: new RegExp(`^llmgw ctl --server \\S+ drain ${node}$`) })).toBeVisible();
  await dialog.getByRole('button', { name: `Drain ${node}` }).click();

  await expect(page.getByRole('status')).toContainText(`${node} is now draining`);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(await stateBadge(nodeRow(page, node))).toHaveText('draining');
  // The simulator moves the replica off within a few seconds.
  await expect(async () => {
    await page.goto('/nodes');
    await expect(await cell(nodeRow(page, node), 'Replicas')).toHaveText('0', { timeout: 500 });
  }).toPass({ timeout: 15_000 });
});

test('a cordon keeps its reason, shown beside the state and in the history', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  const reason = `NVLink errors, RMA ${testInfo.project.name}`;
  await page.goto(`/nodes/${encodeURIComponent(node)}`);
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('link', { name: `Cordon ${node}` }).click();
  const dialog = page.getByRole('dialog', { name: `Cordon ${node}?` });
  await dialog.getByLabel(/Reason/).fill(reason);
  await dialog.getByRole('button', { name: `Cordon ${node}` }).click();
  await expect(page.getByRole('status').first()).toContainText(`${node} is now cordoned`);
  // Who and why as soon as a read of llmgw shows the state, from the
  // console's own record of the change.
  await expect(async () => {
    await page.goto(`/nodes/${encodeURIComponent(node)}`);
    await expect(page.locator('.facts .since')).toContainText(`: ${reason}`, { timeout: 500 });
    await expect(page.locator('.facts .since')).toContainText(/^for \d+ s \(since \d\d:\d\d UTC\)/, { timeout: 500 });
  }).toPass({ timeout: 10_000 });
  // The journal has it within a period or two; the page says it on its next read.
  await expect(async () => {
    await page.goto(`/nodes/${encodeURIComponent(node)}`);
    await expect(page.locator('section.history')).toContainText(reason, { timeout: 500 });
    await expect(page.locator('section.history')).toContainText('ready → cordoned', { timeout: 500 });
  }).toPass({ timeout: 15_000 });
});

test('uncordon asks first, and says who cordoned the node and why', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  const reason = `GPU 3 Xid 48, RMA ${testInfo.project.name} - do not uncordon`;
  await page.goto(`/nodes?confirm=cordon&node=${encodeURIComponent(node)}`);
  const cordon = page.getByRole('dialog', { name: `Cordon ${node}?` });
  await cordon.getByLabel(/Reason/).fill(reason);
  await cordon.getByRole('button', { name: `Cordon ${node}` }).click();
  await expect(page.getByRole('status').first()).toContainText(`${node} is now cordoned`);
  // Once the journal has dated the cordon, the uncordon dialog says whose it is.
  await expect(async () => {
    await page.goto('/nodes');
    if (withJs(testInfo)) await waitForIslands(page);
    await nodeRow(page, node).getByRole('link', { name: `Uncordon ${node}` }).click();
    await expect(page.getByRole('dialog', { name: `Uncordon ${node}?` }).locator('.hold')).toContainText(reason, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  const dialog = page.getByRole('dialog', { name: `Uncordon ${node}?` });
  await expect(dialog.locator('.hold')).toContainText('Set on purpose');
  await dialog.getByRole('button', { name: `Uncordon ${node}` }).click();
  await expect(page.getByRole('status')).toContainText(`${node} is now ready`);
  await expect(await stateBadge(nodeRow(page, node))).toHaveText('ready');
});

test('collecting one node: confirmed, asked to remove, gone from the list', async ({ page }, testInfo) => {
  const { orphans } = await cluster(testInfo);
  const orphan = orphans.find((o) => o.paths.length > 1 && o.bytes > 0)!;
  const files = orphan.paths.length;
  await page.goto('/weights');
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('button', { name: `Collect on ${orphan.node}` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(orphan.paths[0]);
  await expect(dialog).toContainText(fileSize(orphan.bytes));
  await dialog.getByRole('button', { name: new RegExp(`Delete ${files} files`) }).click();
  await expect(page.getByRole('status')).toContainText(`${orphan.node}: asked to remove ${files} files, ${fileSize(orphan.bytes)}`);
  await expect(page.locator(`tr[data-node="${orphan.node}"]`)).toHaveCount(0);
});

test('collecting every node shows a refusing node beside the others', async ({ page }, testInfo) => {
  const { orphans } = await cluster(testInfo);
  const listed = orphans.filter((o) => o.paths.length > 0);
  const files = listed.reduce((n, o) => n + o.paths.length, 0);
  const biggest = listed.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  await page.goto('/weights');
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('button', { name: 'Collect on every node' }).click();
  const dialog = page.getByRole('dialog', { name: 'Collect orphaned weights on every node?' });
  await expect(dialog).toContainText(`${listed.length} nodes`);
  await dialog.getByRole('button', { name: new RegExp(`Delete ${files} files`) }).click();
  const receipt = page.getByRole('status');
  await expect(receipt).toContainText(`${biggest.node}: asked to remove ${biggest.paths.length} files, ${fileSize(biggest.bytes)}`);
  const refused = receipt.locator('.refused');
  await expect(refused).toHaveCount(1);
  await expect(refused).toContainText('refused');
  await expect(receipt).toContainText('Each node checks every path again');
  // Only what the refusing node kept is left.
  const keeper = (await refused.innerText()).split(':')[0];
  await expect(page.locator('tbody tr[data-node]')).toHaveCount(1);
  await expect(page.locator(`tr[data-node="${keeper}"]`)).toBeVisible();
});

test('the list changed between the review and the confirmation: nothing is deleted, and the page says so', async ({ page }, testInfo) => {
  const { orphans } = await cluster(testInfo);
  const listed = orphans.filter((o) => o.paths.length > 0);
  await page.goto('/weights');
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('button', { name: 'Collect on every node' }).click();
  const dialog = page.getByRole('dialog', { name: 'Collect orphaned weights on every node?' });
  await expect(dialog).toContainText(`${listed.length} nodes`);
  // Another operator collects one node meanwhile, with llmgw ctl.
  await collectInSimulator(testInfo, listed[0].node);
  const remove = dialog.getByRole('button', { name: /^Delete / });
  if (withJs(testInfo)) {
    // The open page follows the cluster: the dialog withdraws its Delete
    // button and says why before anyone presses it.
    await expect(dialog).toContainText('the list changed, review it again');
    await expect(remove).toHaveCount(0);
  } else {
    // Without JavaScript the page stands still; the server refuses the
    // confirmation, and the page the form returns to says so.
    await remove.click();
    await expect(page.getByText('the list changed, review it again')).toBeVisible();
  }
  const left = (await cluster(testInfo)).orphans.filter((o) => o.paths.length > 0);
  expect(left.length).toBe(listed.length - 1);
});
