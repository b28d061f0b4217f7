import { cell, cluster, expect, hydrated, nodeRow, setNodeStateInSimulator, test, waitForHydration } from './support';

test.beforeEach(({}, testInfo) => {
  test.skip(!hydrated(testInfo), 'only a running page listens for changes');
});

test('a still cluster costs an open page no request; a change is pushed to it', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  const streams: string[] = [];
  const reads: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path === '/updates') streams.push(path);
    if (path.startsWith('/api/')) reads.push(path);
  });
  await page.goto('/nodes');
  await waitForHydration(page);
  // The first heartbeat after connecting is read once: the page cannot know
  // what it missed between its render and its stream.
  await expect(page.locator('.live-status')).toContainText('updated');
  await page.waitForTimeout(1500);
  reads.length = 0;
  // Three refresh periods of a cluster where nothing happens.
  await page.waitForTimeout(3300);
  expect(reads, 'no server function is called on a timer').toEqual([]);
  expect(streams, 'one stream for the tab').toHaveLength(1);
  await expect(page.locator('.live-status')).toHaveText('updated just now');
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  await expect(await cell(nodeRow(page, node), 'State')).toHaveText('cordoned');
  expect(reads.filter((p) => p === '/api/list_nodes').length).toBeGreaterThan(0);
});

test('a hidden tab lets go of its stream and catches up when shown', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  await page.goto('/nodes');
  await waitForHydration(page);
  await expect(page.locator('.live-status')).toContainText('updated');
  const setVisibility = (state: 'hidden' | 'visible') =>
    page.evaluate((s) => {
      Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, state);
  await setVisibility('hidden');
  await setNodeStateInSimulator(testInfo, node, 'cordoned');
  await page.waitForTimeout(2000);
  await expect(await cell(nodeRow(page, node), 'State')).toHaveText('ready');
  await setVisibility('visible');
  await expect(await cell(nodeRow(page, node), 'State')).toHaveText('cordoned');
});
