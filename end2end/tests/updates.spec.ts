import type { Request } from '@playwright/test';
import { BASE, cell, cluster, expect, withJs, nodeRow, recordHeartbeats, setNodeStateInSimulator, test, waitForHeartbeats, waitForIslands, stateBadge } from './support';

/** A read of data by the running page: a server function, or the page
 * itself fetched again to patch it (`components::live_document`). */
function isRead(r: Request): boolean {
  const path = new URL(r.url()).pathname;
  return path.startsWith('/api/') || (r.resourceType() === 'fetch' && path === new URL(r.frame().url()).pathname);
}

test.beforeEach(({}, testInfo) => {
  test.skip(!withJs(testInfo), 'only a running page listens for changes');
});

test('a still cluster costs an open page no request; a change is pushed to it', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  await recordHeartbeats(page);
  const streams: string[] = [];
  const reads: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path === `${BASE}/updates`) streams.push(path);
    if (isRead(r)) reads.push(path);
  });
  await page.goto('/nodes');
  await waitForIslands(page);
  await expect(page.locator('.live-status')).toContainText('updated');
  await waitForHeartbeats(page, 1);
  // Three refresh periods of a cluster where nothing happens. A window in
  // which a heartbeat says something moved (the cluster still settling
  // from the test before, or the console's clock turning, once a minute)
  // is news, and a read then is owed: such a window is tried again.
  const heard = () => page.evaluate(() => JSON.stringify((window as any).heard.at(-1)));
  let still = false;
  for (let attempt = 0; attempt < 4 && !still; attempt++) {
    const before = await heard();
    // A read owed to the heartbeat just heard goes out at once.
    await page.waitForTimeout(300);
    reads.length = 0;
    await page.waitForTimeout(3300);
    still = (await heard()) === before;
    if (still) expect(reads, 'nothing is read on a timer').toEqual([]);
  }
  expect(still, 'a window of three periods in which nothing moved').toBe(true);
  expect(streams, 'one stream for the tab').toHaveLength(1);
  await expect(page.locator('.live-status')).toHaveText('updated just now');
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  await expect(await stateBadge(nodeRow(page, node))).toHaveText('cordoned');
  expect(reads.filter((p) => p === `${BASE}/nodes`).length).toBeGreaterThan(0);
});

test('a page reads nothing again on opening its stream when nothing changed since its render', async ({ page }) => {
  await recordHeartbeats(page);
  const reads: string[] = [];
  page.on('request', (r) => {
    if (isRead(r)) reads.push(new URL(r.url()).pathname);
  });
  // A clean try: the first heartbeat is the one the page was rendered at,
  // and the next says nothing moved (the console's clock turns once a
  // minute, and a try that straddles a turn is news).
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.goto('/nodes');
    await waitForIslands(page);
    await waitForHeartbeats(page, 2);
    const [first, second] = await page.evaluate(() => (window as any).heard);
    const settings = JSON.parse((await page.locator('meta[name="llmgw-console-ui"]').getAttribute('content'))!);
    if (attempt > 0) expect(settings.rendered_at, 'a console with a listener says its heartbeat').not.toBeNull();
    const clean = JSON.stringify(settings.rendered_at) === JSON.stringify(first) && JSON.stringify(first) === JSON.stringify(second);
    if (!clean) {
      reads.length = 0;
      continue;
    }
    // The tab's title and icon too: their pulse came with the page and
    // comes with each heartbeat.
    expect(reads, 'the data on screen is current').toEqual([]);
    return;
  }
  throw new Error('no try where nothing moved between the render and the second heartbeat');
});

test('a hidden tab lets go of its stream and catches up when shown', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  await page.goto('/nodes');
  await waitForIslands(page);
  await expect(page.locator('.live-status')).toContainText('updated');
  const setVisibility = (state: 'hidden' | 'visible') =>
    page.evaluate((s) => {
      Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
  await setVisibility('hidden');
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  await page.waitForTimeout(2000);
  await expect(await stateBadge(nodeRow(page, node))).toHaveText('ready');
  await setVisibility('visible');
  await expect(await stateBadge(nodeRow(page, node))).toHaveText('cordoned');
});
