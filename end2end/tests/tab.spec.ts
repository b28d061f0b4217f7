import { cluster, expect, withJs, test, waitForIslands } from './support';

test('the tab title and icon say when a model stops serving', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'the title follows the cluster only while the page runs');
  const { models } = await cluster(testInfo);
  // A model serving with every replica ready: asking for more than run
  // leaves it not placed.
  const model = models.find((m) => m.min > 0 && m.ready >= m.min && m.total === m.ready)!;
  await page.goto('/nodes');
  await waitForIslands(page);
  await expect(page).toHaveTitle(/^\(\d+\) Nodes · llmgw console — \d+ models? not serving, \d+ below wanted$/);
  const before = Number((await page.title()).match(/^\((\d+)\)/)![1]);
  const down = Number((await page.title()).match(/— (\d+) models? not serving/)![1]);
  const below = Number((await page.title()).match(/, (\d+) below wanted$/)![1]);
  await expect(page.locator('link#tab-icon')).toHaveAttribute('href', '/favicon-bad.svg');

  const sim = testInfo.project.metadata.simulator as string;
  const response = await fetch(`${sim}/_simulator/minimum`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: model.name, min: model.ready + 3 }),
  });
  expect(response.status).toBe(204);
  // It still serves, with fewer than wanted: counted apart from those down.
  await expect(page).toHaveTitle(
    `(${before + 1}) Nodes · llmgw console — ${down} model${down === 1 ? '' : 's'} not serving, ${below + 1} below wanted`,
    { timeout: 10_000 },
  );
});
