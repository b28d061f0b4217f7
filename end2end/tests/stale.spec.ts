import { expect, freePort, withJs, recordHeartbeats, startOwn as start, stopOwn, test, waitFor, waitForHeartbeats, waitForIslands } from './support';

// Its own simulator and console, so that stopping the simulator disturbs
// no other test.
test.afterEach(stopOwn);

test('when the admin API goes away the last data stays, marked stale, and recovers', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'without JavaScript the page does not refresh itself');
  const SIM = await freePort();
  const CONSOLE = await freePort();
  const simulator = start(['simulate', '--listen', `127.0.0.1:${SIM}`]);
  start(['--admin-api', `127.0.0.1:${SIM}`, '--listen', `127.0.0.1:${CONSOLE}`, '--refresh-seconds', '1']);
  await waitFor(`http://127.0.0.1:${SIM}/api/v1/nodes`);
  await waitFor(`http://127.0.0.1:${CONSOLE}/healthz`);

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
