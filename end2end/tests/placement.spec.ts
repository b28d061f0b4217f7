import { cluster, expect, withJs, test, waitForIslands } from './support';

test('model names with slashes, colons and dots open their explain page from a pasted URL', async ({ page }, testInfo) => {
  const { models } = await cluster(testInfo);
  const awkward = models.map((m) => m.name).filter((n) => /[/: ]/.test(n));
  expect(awkward.length).toBeGreaterThan(2);
  for (const name of awkward) {
    await page.goto(`/models/${encodeURIComponent(name)}/placement`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
    if (!name.includes(' ')) {
      // Typed by hand, the name's own / and : left bare.
      await page.goto(`/models/${name}/placement`);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
    }
  }
});

test('the grouping and filter of an explanation survive a shared link', async ({ page }, testInfo) => {
  const { nodes, explains } = await cluster(testInfo);
  const explain = explains.reduce((a, b) => (b.rejections.length > a.rejections.length ? b : a));
  const node = explain.rejections.find((r) => r.node)!.node;
  const matching = explain.rejections.filter((r) => `${r.profile} ${r.pool} ${r.node} ${r.reason}`.includes(node)).length;
  const count = `${matching} of ${explain.rejections.length} rejections`;
  await page.goto(`/models/${encodeURIComponent(explain.model)}/placement`);
  await expect(page.locator('.verdict')).toContainText('Not placed');
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('link', { name: 'By reason' }).click();
  await expect(page).toHaveURL(/group=reason/);
  await expect(page.locator('.by-reason .group').first()).toContainText('×');
  await page.getByRole('searchbox', { name: 'Filter rejections' }).fill(node);
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(new RegExp(`q=${node}`));
  await expect(page.locator('.filter-bar .count')).toHaveText(count);

  // Whoever opens the link sees exactly this.
  const shared = page.url();
  const other = await page.context().newPage();
  await other.goto(shared);
  await expect(other.locator('.by-reason')).toBeVisible();
  await expect(other.locator('.filter-bar .count')).toHaveText(count);
  // Each rejected node is shown as it is now, beside the reason.
  const live = nodes.find((n) => n.id === node)!;
  await expect(other.locator('.live-node').first()).toContainText(`${live.gpu_free}/${live.gpu_total} free`);
  await other.close();
});

test('not placed links to the explanation, and by-node grouping names each node', async ({ page }, testInfo) => {
  const { models, explains } = await cluster(testInfo);
  const notPlaced = models.filter((m) => !(m.min === 0 && m.total === 0) && !(m.min > 0 && m.ready >= m.min) && !(m.total > m.ready));
  await page.goto('/models?status=not-placed');
  await expect(page.locator('.filter-bar .count')).toHaveText(`${notPlaced.length} of ${models.length} models`);
  const model = notPlaced.find((m) => explains.find((e) => e.model === m.name)!.rejections.some((r) => r.node))!;
  const groups = new Set(
    explains.find((e) => e.model === model.name)!.rejections.map((r) => r.node || (r.pool ? `pool ${r.pool}` : `profile ${r.profile}`)),
  ).size;
  await page.locator(`tr[data-model="${model.name}"]`).getByRole('link', { name: 'why?' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(model.name);
  await page.getByRole('link', { name: 'By node' }).click();
  await expect(page.locator('.by-node .group')).toHaveCount(groups);
  await page.reload();
  await expect(page.locator('.by-node .group')).toHaveCount(groups);
});

test('a rejection by a cordoned node offers uncordon right there, and it works', async ({ page }, testInfo) => {
  const { nodes, explains } = await cluster(testInfo);
  // Not a draining node: a drain is somebody's purpose, never the best fix.
  const cordoned = new Set(nodes.filter((n) => n.state === 'cordoned').map((n) => n.id));
  const explain = explains.find((e) => e.rejections.some((r) => cordoned.has(r.node)))!;
  const node = explain.rejections.find((r) => cordoned.has(r.node))!.node;
  await page.goto(`/models/${encodeURIComponent(explain.model)}/placement`);
  await expect(page.locator('.outlook-sentence')).toContainText(`uncordoning ${node} would remove`);
  await expect(page.locator('table.rejections li.fix[data-fix="uncordon"]').first()).toContainText(`uncordon ${node}`);
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('link', { name: `Uncordon ${node}` }).first().click();
  // It asks first, as cordon does.
  await page.getByRole('dialog', { name: `Uncordon ${node}?` }).getByRole('button', { name: `Uncordon ${node}` }).click();
  await expect(page.getByRole('status')).toContainText(`${node} is now ready`);
  await expect(page).toHaveURL(/\/placement/);
  await expect(page.locator('li.fix[data-fix="uncordon"]')).toHaveCount(0);
});
