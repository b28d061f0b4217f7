import { BASE, expect, recordHeartbeats, serveOwn, startOwn as start, stopOwn, test, waitFor, waitForHeartbeats, waitForIslands, withJs } from './support';
import type { Page } from '@playwright/test';

// Tests that stop servers start their own simulator and console, so that
// stopping them disturbs no other test.
test.afterEach(stopOwn);

async function ownCluster(build?: string) {
  const { port: sim, child: simulator } = await serveOwn(['simulate']);
  const consoleArgs = ['--admin-api', `127.0.0.1:${sim}`, '--refresh-seconds', '1'];
  const env = build ? { LLMGW_CONSOLE_BUILD: build } : {};
  const { port, child: console } = await serveOwn(consoleArgs, { env });
  // A restart takes the address again, which its predecessor has let go.
  consoleArgs.push('--listen', `127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    simulator,
    console,
    restartSimulator: () => start(['simulate', '--listen', `127.0.0.1:${sim}`]),
    restartConsole: async (build?: string) => {
      const again = start(consoleArgs, build ? { LLMGW_CONSOLE_BUILD: build } : {});
      await waitFor(`http://127.0.0.1:${port}/healthz`);
      return again;
    },
  };
}

/** Whether the page scrolls in either direction. */
const scrolls = (page: Page) =>
  page.evaluate(() => {
    const s = document.scrollingElement!;
    return s.scrollHeight > window.innerHeight || s.scrollWidth > window.innerWidth;
  });

test('at 1920x1080 the wall shows every panel, no scrollbar and no control', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto('/wall');
  const panels = page.locator('.wall-panel');
  await expect(panels).toHaveCount(5);
  for (const panel of await panels.all()) {
    await expect(panel).toBeVisible();
    // Nothing is cut off inside a panel either.
    const fits = await panel.evaluate((e) => e.scrollHeight <= e.clientHeight + 1);
    expect(fits, await panel.getAttribute('data-panel')).toBe(true);
  }
  expect(await scrolls(page)).toBe(false);
  await expect(page.locator('a, button, input, select, textarea, form')).toHaveCount(0);
  // A 4K screen shows the same, scaled.
  await page.setViewportSize({ width: 3840, height: 2160 });
  expect(await scrolls(page)).toBe(false);
});

test('the panel and turn choice survive a reload from the link', async ({ page }, testInfo) => {
  await page.goto('/wall/setup');
  // Every panel is chosen at first: keep two.
  for (const other of ['Nodes in trouble', 'Reclaimable disk', 'Last hours']) await page.getByLabel(other).uncheck();
  await expect(page.getByLabel('Models not serving')).toBeChecked();
  await expect(page.getByLabel('Nodes and GPUs')).toBeChecked();
  await page.getByLabel('Seconds per panel').fill('5');
  await page.getByRole('button', { name: 'Make the link' }).click();
  const link = page.locator('a.wall-link');
  await expect(link).toHaveText(`${BASE}/wall?panels=nodes,models&cycle=5`);
  await link.click();
  await expect(page).toHaveURL(/\/wall\?panels=nodes,models&cycle=5$/);
  const shownPanel = page.locator('.wall-panel:visible');
  await expect(shownPanel).toHaveAttribute('data-panel', 'nodes');
  await page.reload();
  await expect(page.locator('.wall-panel')).toHaveCount(2);
  await expect(shownPanel).toHaveAttribute('data-panel', 'nodes');
  if (withJs(testInfo)) {
    await waitForIslands(page);
    await expect(shownPanel).toHaveAttribute('data-panel', 'models', { timeout: 8_000 });
  }
});

test('the wall keeps its data with a stale banner while the admin API is down, and clears it', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'without JavaScript the page does not refresh itself');
  const c = await ownCluster();
  await page.goto(`${c.url}/wall`);
  await waitForIslands(page);
  await expect(page.locator('.live-status')).toContainText('updated');
  c.simulator.kill();
  await expect(page.locator('.live-status')).toContainText('stale: refreshing has failed for');
  await expect(page.getByRole('alert')).toContainText('cannot reach the llmgw admin API');
  await expect(page.locator('.stale-data .wall-panel')).toHaveCount(5);
  c.restartSimulator();
  await expect(page.getByRole('alert')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator('.live-status')).not.toContainText('stale');
  await expect(page.locator('.wall-panel')).toHaveCount(5);
});

test('the wall recovers by itself when the console restarts, and reloads once for a new build', async ({ page }, testInfo) => {
  test.skip(!withJs(testInfo), 'without JavaScript the page does not refresh itself');
  const c = await ownCluster('build-a');
  await recordHeartbeats(page);
  await page.goto(`${c.url}/wall`);
  await waitForIslands(page);
  // A stream that never brought a heartbeat is not known to be lost.
  await waitForHeartbeats(page);
  await page.evaluate(() => ((window as any).sameDocument = true));

  // The same build comes back: the page carries on without a reload.
  c.console.kill();
  await expect(page.locator('.live-status')).toContainText('stale', { timeout: 10_000 });
  await expect(page.getByRole('alert')).toContainText('The console did not answer');
  await expect(page.locator('.stale-data .wall-panel')).toHaveCount(5);
  const again = await c.restartConsole('build-a');
  await expect(page.locator('.live-status')).not.toContainText('stale', { timeout: 10_000 });
  expect(await page.evaluate(() => (window as any).sameDocument)).toBe(true);

  // An upgrade: the page loads the new build, once.
  again.kill();
  await expect(page.locator('.live-status')).toContainText('stale', { timeout: 10_000 });
  await c.restartConsole('build-b');
  // Asked while the reload is under way, the page has no context to answer.
  const reloaded = () => page.evaluate(() => (window as any).sameDocument ?? 'reloaded').catch(() => 'reloading');
  await expect.poll(reloaded, { timeout: 15_000 }).toBe('reloaded');
  const meta = page.locator('meta[name="llmgw-console-ui"]');
  await expect(meta).toHaveAttribute('content', /"build":"build-b"/);
  await waitForIslands(page);
  await page.evaluate(() => ((window as any).sameDocument = true));
  await page.waitForTimeout(3_000);
  expect(await page.evaluate(() => (window as any).sameDocument)).toBe(true);
  await expect(page.locator('.wall-panel')).toHaveCount(5);
});
