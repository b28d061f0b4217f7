import { expect, recordHeartbeats, serveOwn, startOwn as start, stopOwn, test, waitForHeartbeats, waitForIslands, withJs } from './support';

// Its own simulator and console, so that stopping the simulator disturbs
// no other test.
test.afterEach(stopOwn);

/** A simulator and a console of its own, refreshing every second. */
async function ownConsole() {
  const { port: SIM, child: simulator } = await serveOwn(['simulate']);
  const { port: CONSOLE } = await serveOwn(['--admin-api', `127.0.0.1:${SIM}`, '--refresh-seconds', '1']);
  return { SIM, CONSOLE, simulator };
}

test('when the admin API goes away the last data stays, marked stale, and recovers', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'without JavaScript the page does not refresh itself');
  const { SIM, CONSOLE, simulator } = await ownConsole();

  await recordHeartbeats(page);
  await page.goto(`http://127.0.0.1:${CONSOLE}/nodes`);
  await waitForIslands(page);
  await expect(page.locator('.live-status')).toContainText('updated');
  // The first heartbeat says the admin API answered; from then on a failed
  // poll is news.
  await waitForHeartbeats(page);
  const first = await page.locator('tbody tr[data-node]').first().getAttribute('data-node');

  simulator.kill();
  await expect(page.locator('.live-status')).toContainText('stale: refreshing has failed for');
  await expect(page.getByRole('alert')).toContainText(`cannot reach the llmgw admin API at http://127.0.0.1:${SIM}`);
  // The last good data is still there, under the error.
  await expect(page.locator(`.stale-data tr[data-node="${first}"]`)).toBeVisible();

  start(['simulate', '--listen', `127.0.0.1:${SIM}`]);
  await expect(page.getByRole('alert')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator('.live-status')).not.toContainText('stale');
  await expect(page.locator(`tr[data-node="${first}"]`)).toBeVisible();
});

test('an admin API that answers errors keeps the last data on screen, marked stale, until it recovers', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'without JavaScript the page does not refresh itself');
  const sim = testInfo.project.metadata.simulator as string;
  const fault = (body: object) =>
    fetch(`${sim}/_simulator/fault`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await page.goto('/nodes');
  await waitForIslands(page);
  await expect(page.locator('.live-status')).toContainText('updated');
  const first = await page.locator('tbody tr[data-node]').first().getAttribute('data-node');

  expect((await fault({ fault: 'error-envelope' })).status).toBe(204);
  await expect(page.locator('.live-status')).toContainText('stale');
  await expect(page.getByRole('alert')).toContainText("the control plane's store is unavailable");
  await expect(page.locator(`.stale-data tr[data-node="${first}"]`)).toBeVisible();

  expect((await fault({ fault: 'none' })).status).toBe(204);
  await expect(page.getByRole('alert')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator(`tr[data-node="${first}"]`)).toBeVisible();
});

test('a page opened while the admin API is down shows the last rows at once, stale with their true age, and the tab says unreachable', async ({ page }, testInfo) => {
  const { SIM, CONSOLE, simulator } = await ownConsole();
  // The console reads the nodes once; then the admin API goes away.
  const read = await (await fetch(`http://127.0.0.1:${CONSOLE}/nodes`)).text();
  expect(read).toContain('data-node=');
  simulator.kill();
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  const started = Date.now();
  await page.goto(`http://127.0.0.1:${CONSOLE}/nodes`);
  expect(Date.now() - started).toBeLessThan(2_000);
  await expect(page.locator('.stale-data tbody tr[data-node]').first()).toBeVisible();
  await expect(page.getByRole('alert')).toContainText(`cannot reach the llmgw admin API at http://127.0.0.1:${SIM}`);
  // The rows were read three seconds and more ago, not "0 s ago".
  const line = await page.locator('.live-status').first().textContent();
  const age = Number(/showing data from (\d+) s ago/.exec(line ?? '')?.[1]);
  expect(age, line ?? '').toBeGreaterThanOrEqual(3);
  await expect(page).toHaveTitle(/unreachable/);
  if (withJs(testInfo)) {
    await waitForIslands(page);
    await expect(page.locator('link[rel="icon"]')).toHaveCount(1);
  }
  await expect(page.locator('link[rel="icon"]').last()).toHaveAttribute('href', '/favicon-unreachable.svg');
  if (!withJs(testInfo)) return;

  // With JavaScript the page comes back by itself, and so does the tab.
  start(['simulate', '--listen', `127.0.0.1:${SIM}`]);
  await expect(page.locator('.live-status')).not.toContainText('stale', { timeout: 15_000 });
  await expect(page).not.toHaveTitle(/unreachable/);
  await expect(page.locator('link[rel="icon"]')).not.toHaveAttribute('href', '/favicon-unreachable.svg');
});
