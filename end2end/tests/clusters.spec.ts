import { expect, serveOwn, stopOwn, test, waitForIslands, withJs } from './support';

// Two clusters of its own: eu (the demo cluster, with trouble) and us (a
// small generated one).
test.afterEach(stopOwn);

async function twoClusters(): Promise<{ url: string; us: string }> {
  const eu = await serveOwn(['simulate']);
  const us = await serveOwn(['simulate', '--nodes', '12', '--models', '6', '--seed', '5']);
  const { url } = await serveOwn(['--cluster', `eu=${eu.url}`, '--cluster', `us=${us.url}`, '--refresh-seconds', '1']);
  return { url, us: us.url };
}

test('the overview shows every cluster, and each link keeps to its cluster', async ({ page }, testInfo) => {
  const { url } = await twoClusters();
  await page.goto(`${url}/`);
  const rows = page.locator('table.fleet tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('eu');
  await expect(rows.nth(1)).toContainText('us');
  // eu's models not serving link to their explanation in eu.
  const first = page.locator('ul.not-serving a').first();
  await expect(first).toHaveAttribute('href', /^\/c\/eu\/models\//);

  await rows.nth(1).getByRole('link', { name: 'us' }).click();
  await expect(page).toHaveURL(`${url}/c/us/`);
  await expect(page.locator('header.top .cluster-badge')).toHaveText('us');
  if (withJs(testInfo)) {
    await waitForIslands(page);
    // `g n` goes to the nodes of this cluster, not of the first.
    await page.keyboard.press('g');
    await page.keyboard.press('n');
    await expect(page).toHaveURL(`${url}/c/us/nodes`);
  } else {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Nodes', exact: true }).click();
    await expect(page).toHaveURL(`${url}/c/us/nodes`);
  }
  // Switching keeps the kind of page; the switch is a menu.
  await page.locator('details.cluster-menu summary').click();
  await expect(page.locator('.cluster-menu .upstream-in-menu')).toContainText('us reads http://127.0.0.1:');
  await page.locator('nav.cluster-switch').getByRole('link', { name: 'eu' }).click();
  await expect(page).toHaveURL(`${url}/c/eu/nodes`);
  await expect(page.locator('header.top .cluster-badge')).toHaveText('eu');
});

test('with two clusters the header fits from a phone to 4K: nothing scrolls sideways, every control is on screen', async ({ page }) => {
  test.setTimeout(120_000);
  const { url } = await twoClusters();
  for (const width of [360, 768, 1024, 1280, 1366, 1440, 1920, 3840]) {
    await page.setViewportSize({ width, height: 900 });
    for (const path of ['/c/eu/', '/c/eu/nodes', '/c/us/models', '/c/eu/wall/setup', '/']) {
      await page.goto(`${url}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${path} at ${width} px scrolls sideways by ${overflow}px`).toBeLessThanOrEqual(0);
      for (const control of ['header.top .theme', 'header.top .brand', 'header.top summary', 'header.top button.copy']) {
        const found = page.locator(control);
        if ((await found.count()) === 0) continue;
        const box = (await found.first().boundingBox())!;
        expect(box, `${control} on ${path} at ${width} px`).not.toBeNull();
        expect(box.x + box.width, `${control} on ${path} at ${width} px ends off screen`).toBeLessThanOrEqual(width);
      }
    }
  }
});

test('a dialog names its cluster and its llmgw ctl line the admin API', async ({ page }) => {
  const { url } = await twoClusters();
  await page.goto(`${url}/c/us/nodes`);
  const node = await page.locator('tr[data-node]').first().getAttribute('data-node');
  await page.getByRole('link', { name: `Drain ${node}` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.locator('.cluster-badge')).toHaveText('us');
  await expect(dialog.locator('.ctl code')).toContainText('llmgw ctl --server http://127.0.0.1:');
  await expect(dialog.locator('.ctl code')).toContainText(`drain ${node}`);
});

test('one cluster that hangs slows no other, and the overview says which', async ({ page }) => {
  const { url, us } = await twoClusters();
  await page.goto(`${url}/`);
  await expect(page.locator('tr[data-cluster="us"] a[href="/c/us/nodes"]')).toBeVisible();
  const hung = await fetch(`${us}/_simulator/fault`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fault: 'slow', delay_seconds: 600 }),
  });
  expect(hung.status).toBeLessThan(300);
  const started = Date.now();
  await page.goto(`${url}/c/eu/nodes`);
  await expect(page.locator('tr[data-node]').first()).toBeVisible();
  expect(Date.now() - started).toBeLessThan(5_000);
  await page.goto(`${url}/`);
  // Both rows keep their figures: us's as last read, marked once it fails.
  await expect(page.locator('tr[data-cluster="eu"] a[href="/c/eu/nodes"]')).toBeVisible();
  await expect(page.locator('tr[data-cluster="us"] a[href="/c/us/nodes"]')).toBeVisible();
});

test('the wall of two clusters is every cluster, names its models and nodes, and fits a 1080p screen', async ({ page }) => {
  const { url } = await twoClusters();
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(`${url}/wall`);
  await expect(page).toHaveURL(/\/wall\?clusters=eu,us$/);
  const columns = page.locator('section.wall-column');
  await expect(columns).toHaveCount(2);
  // eu, the demo cluster, has models not serving: their names are on the
  // wall, each by its distinctive end, the whole name on hover.
  const names = columns.first().locator('.wall-panel[data-panel="models"] ul.rows .name');
  expect(await names.count()).toBeGreaterThan(0);
  for (const name of await names.all()) {
    const whole = (await name.getAttribute('title'))!;
    await expect(name).toHaveText(whole.split('/').pop()!);
  }
  for (const panel of await page.locator('.wall-panel').all()) {
    const fits = await panel.evaluate((e) => e.scrollHeight <= e.clientHeight + 1);
    expect(fits, `${await panel.getAttribute('data-panel')} is cut off`).toBe(true);
  }
});
