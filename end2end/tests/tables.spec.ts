import { cell, cluster, expect, withJs, test, waitForIslands } from './support';

test('a filter and a sort survive a reload from the URL', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const h100 = nodes.filter((n) => n.id.includes('h100'));
  const count = `${h100.length} of ${nodes.length} nodes`;
  await page.goto('/nodes');
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('searchbox', { name: 'Filter nodes' }).fill('h100');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/q=h100/);
  await expect(page.locator('.filter-bar .count')).toHaveText(count);
  // The header says the order, and its link flips it, after each sort.
  const gpus = page.locator('thead th').filter({ has: page.getByRole('link', { name: /GPUs/ }) });
  await expect(gpus).toHaveAttribute('aria-sort', 'none');
  await page.getByRole('link', { name: 'GPUs' }).click();
  await expect(page).toHaveURL(/sort=gpus/);
  await expect(gpus).toHaveAttribute('aria-sort', 'ascending');
  await page.getByRole('link', { name: /GPUs/ }).click();
  await expect(page).toHaveURL(/desc=1/);
  await expect(gpus).toHaveAttribute('aria-sort', 'descending');
  await expect(gpus).toContainText('GPUs ▼');

  const order = async () => page.locator('tbody tr[data-node]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-node')));
  const before = await order();
  const most = Math.max(...h100.map((n) => n.gpu_free));
  expect(h100.find((n) => n.id === before[0])!.gpu_free).toBe(most); // the most free first when descending
  await page.reload();
  await expect(page.locator('.filter-bar .count')).toHaveText(count);
  expect(await order()).toEqual(before);
  await expect(page.getByRole('searchbox', { name: 'Filter nodes' })).toHaveValue('h100');
});

test('replicas show shards, idle dashes and errors on their own rows', async ({ page }, testInfo) => {
  const { replicas } = await cluster(testInfo);
  await page.goto('/replicas');
  const multi = replicas.find((r) => r.shards.length > 1)!;
  const shard = multi.shards[0];
  await expect(await cell(page.locator(`tr[data-replica="${multi.id}"]`), 'Nodes')).toContainText(`${shard.node}:[${shard.gpus.join(' ')}]`);
  const broken = replicas.flatMap((r) => r.shards).find((s) => s.err)!;
  await expect(page.locator('tr.row-error').filter({ hasText: `${broken.id} on ${broken.node}: ${broken.err}` })).toBeVisible();
  const unused = replicas.find((r) => r.idle_sec < 0)!;
  await expect(await cell(page.locator(`tr[data-replica="${unused.id}"]`), 'Idle')).toHaveText('-');
  const withErrors = replicas.filter((r) => r.err || r.shards.some((s) => s.err)).length;
  await page.goto('/replicas?errors=1');
  await expect(page.locator('.filter-bar .count')).toHaveText(`${withErrors} of ${replicas.length} replicas`);
});

test('the overview links each figure to the list behind it', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const sick = nodes.filter((n) => n.unhealthy.length > 0);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Cluster overview' })).toBeVisible();
  await page.getByRole('link', { name: /unhealthy, on/ }).click();
  await expect(page).toHaveURL(/unhealthy=1/);
  await expect(page.locator('.filter-bar .count')).toHaveText(`${sick.length} of ${nodes.length} nodes`);
  await expect(page.locator(`tr[data-node="${sick[0].id}"]`)).toBeVisible();
});

test('a table downloads as the CSV of its whole view, with or without JavaScript', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const h100 = nodes.filter((n) => n.id.includes('h100'));
  await page.goto('/nodes?q=h100&sort=gpus&desc=1');
  if (withJs(testInfo)) await waitForIslands(page);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/-nodes\.csv$/);
  const text = await (await download.createReadStream()).toArray();
  // Node names have no comma or quote: each line splits into its cells.
  const rows = Buffer.concat(text).toString('utf8').trim().split('\n').map((l) => l.split(',').map((c) => c.replace(/^"|"$/g, '')));
  expect(rows[0].slice(0, 4)).toEqual(['node', 'state', 'gpus_free', 'gpus_total']);
  expect(rows.length - 1).toBe(h100.length);
  const most = Math.max(...h100.map((n) => n.gpu_free));
  expect(Number(rows[1][2])).toBe(most); // the page's sort, in the file
});

test('compact rows and the chosen columns stay in the URL through sorting, paging and a reload', async ({ page }, testInfo) => {
  await page.goto('/nodes');
  if (withJs(testInfo)) await waitForIslands(page);
  const firstRow = page.locator('tbody tr[data-node]').first();
  const comfortable = (await firstRow.boundingBox())!.height;
  await page.getByRole('link', { name: 'Compact rows' }).click();
  await expect(page).toHaveURL(/compact=1/);
  await expect(page.locator('table.data.nodes')).toHaveClass(/compact/);
  const compact = (await firstRow.boundingBox())!.height;
  expect(compact).toBeLessThan(comfortable * 0.8);

  // Choose the columns: Memory and Disk go, the node's name always stays.
  const headers = page.locator('table.data.nodes thead th');
  await expect(headers.filter({ hasText: /^\s*Memory\s*$/i })).toHaveCount(1);
  await page.locator('.columns-menu summary').click();
  await page.getByRole('checkbox', { name: 'Memory' }).uncheck();
  await page.getByRole('checkbox', { name: 'Disk' }).uncheck();
  await page.getByRole('button', { name: 'Show these' }).click();
  await expect(page).toHaveURL(/cols=/);
  await expect(page).toHaveURL(/compact=1/);
  await expect(headers.filter({ hasText: /^\s*Memory\s*$/i })).toHaveCount(0);
  await expect(headers.filter({ hasText: /^\s*Disk\s*$/i })).toHaveCount(0);
  await expect(headers.filter({ hasText: /^Node/i })).toHaveCount(1);
  await expect(headers.filter({ hasText: /^State/i })).toHaveCount(1);
  // A sort keeps both; so does a reload.
  await page.getByRole('link', { name: 'GPUs' }).click();
  await expect(page).toHaveURL(/sort=gpus/);
  await expect(page).toHaveURL(/compact=1/);
  await expect(headers.filter({ hasText: /^\s*Memory\s*$/i })).toHaveCount(0);
  await page.reload();
  await expect(page.locator('table.data.nodes')).toHaveClass(/compact/);
  await expect(headers.filter({ hasText: /^\s*Disk\s*$/i })).toHaveCount(0);
  // And back.
  await page.locator('.columns-menu summary').click();
  await page.getByRole('link', { name: 'Every column' }).click();
  await expect(headers.filter({ hasText: /^\s*Memory\s*$/i })).toHaveCount(1);
  await page.getByRole('link', { name: 'Comfortable rows' }).click();
  await expect(page).not.toHaveURL(/compact/);
});

test('names in a table look like the links they are', async ({ page }) => {
  for (const path of ['/nodes', '/models', '/replicas']) {
    await page.goto(path);
    const name = page.locator('table.data tbody tr[data-key] a:not(.button)').first();
    await expect(name).toBeVisible();
    const looks = await name.evaluate((a) => {
      const style = getComputedStyle(a);
      const text = getComputedStyle(a.closest('tr')!).color;
      return { underlined: style.textDecorationLine.includes('underline'), coloured: style.color !== text };
    });
    expect(looks, path).toEqual({ underlined: true, coloured: true });
  }
});
