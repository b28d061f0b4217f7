import AxeBuilder from '@axe-core/playwright';
import { expect, serveOwn, stopOwn, test, waitForIslands, withJs } from './support';

// A cluster of its own, larger than a page of the node table.
test.afterEach(stopOwn);

const NODES = 250;

async function bigCluster(): Promise<string> {
  const sim = await serveOwn(['simulate', '--nodes', String(NODES), '--models', '50', '--seed', '7']);
  return (await serveOwn(['--admin-api', sim.url])).url;
}

test('past a hundred rows the table pages by links, and a new sort starts at page one', async ({ page }, testInfo) => {
  const url = await bigCluster();
  await page.goto(`${url}/nodes?sort=gpus&desc=1`);
  if (withJs(testInfo)) await waitForIslands(page);
  const rows = page.locator('main table.data > tbody > tr[data-node]');
  const ids = () => rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-node')));
  const pager = page.getByRole('navigation', { name: 'Pages of nodes' });
  await expect(pager).toContainText(`Rows 1–100 of ${NODES} · page 1 of 3`);
  await expect(rows).toHaveCount(100);
  const first = await ids();
  if (withJs(testInfo)) {
    // axe runs as a script, which the project with JavaScript off refuses.
    const results = await new AxeBuilder({ page }).include('main').analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
  }

  await pager.getByRole('link', { name: 'Next →' }).click();
  await expect(page).toHaveURL(/\?sort=gpus&desc=1&page=2$/);
  await expect(pager).toContainText(`Rows 101–200 of ${NODES} · page 2 of 3`);
  await expect(rows).toHaveCount(100);
  const second = await ids();
  expect(second.filter((id) => first.includes(id))).toEqual([]);

  await page.locator('thead').getByRole('link', { name: 'Node' }).click();
  await expect(page).toHaveURL(/\?sort=node$/);
  await expect(pager).toContainText(`Rows 1–100 of ${NODES} · page 1 of 3`);
  await expect(pager.getByRole('link', { name: '← Previous' })).toHaveCount(0);
});
