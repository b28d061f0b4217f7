import { cluster, expect, nodeRow, stateBadge, test, waitForIslands, withJs } from './support';

// The small things an operator reaches for: a box that jumps to any name,
// an undo after a cordon, a confirmation that says how long it has left,
// and one line per action on the events page.

test('the header box jumps to a node by part of its name, with the keyboard alone where scripts run', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes[2].id;
  const part = node.replace(/^gpu-/, '');
  await page.goto('/models');
  const box = page.getByRole('searchbox', { name: 'Jump to a node, model or replica' });
  if (withJs(testInfo)) {
    await waitForIslands(page);
    await page.keyboard.press('Control+k');
    await expect(box).toBeFocused();
    await page.keyboard.type(part);
  } else {
    await box.fill(part);
  }
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/jump\\?q=${part}`));
  const best = page.locator('ol.jump-hits li a').first();
  await expect(best).toHaveText(node);
  await expect(page.locator('ol.jump-hits li').first()).toContainText('node');
  if (withJs(testInfo)) {
    // Focus is on the best, so Enter opens it.
    await expect(best).toBeFocused();
    await page.keyboard.press('Enter');
  } else {
    await best.click();
  }
  await expect(page).toHaveURL(new RegExp(`/nodes/${node}$`));
  // Nothing like it: said, not a blank list.
  await page.goto('/jump?q=no-such-name-anywhere');
  await expect(page.locator('main')).toContainText('Nothing is called anything like');
});

test('a cordon can be undone from its receipt for a few seconds', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  const node = nodes.find((n) => n.state === 'ready')!.id;
  await page.goto(`/nodes?confirm=cordon&node=${encodeURIComponent(node)}`);
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('dialog').getByRole('button', { name: `Cordon ${node}` }).click();
  const receipt = page.getByRole('status').filter({ hasText: `${node} is now cordoned` });
  await expect(receipt).toBeVisible();
  await receipt.getByRole('button', { name: `Undo: Uncordon ${node} again` }).click();
  await expect(page.getByRole('status').filter({ hasText: `${node} is now ready` })).toBeVisible();
  await expect(await stateBadge(nodeRow(page, node))).toHaveText('ready');
  // An uncordon's undo cordons again; a drain has none.
  await expect(page.getByRole('button', { name: `Undo: Cordon ${node} again` })).toBeVisible();
});

test('a collection says how long its confirmation lasts and can be reviewed again', async ({ page }, testInfo) => {
  await page.goto('/weights');
  if (withJs(testInfo)) await waitForIslands(page);
  await page.getByRole('button', { name: 'Collect on every node' }).click();
  const dialog = page.getByRole('dialog', { name: 'Collect orphaned weights on every node?' });
  const left = dialog.locator('.countdown .left');
  await expect(left).toHaveText(/^\d+ (m|s)/);
  const token = new URL(page.url()).searchParams.get('token');
  expect(token).toBeTruthy();
  // A confirmation names the second it was issued in.
  await page.waitForTimeout(1100);
  if (withJs(testInfo)) {
    // Counted down where it is read.
    const first = await left.innerText();
    await expect(left).not.toHaveText(first, { timeout: 70_000 });
  }
  await dialog.getByRole('button', { name: 'Review again' }).click();
  await expect(page.getByRole('dialog', { name: 'Collect orphaned weights on every node?' })).toBeVisible();
  await expect.poll(() => new URL(page.url()).searchParams.get('token')).not.toBe(token);
});

test('an action through the console is one line on the events page, in operator words', async ({ page }, testInfo) => {
  const { nodes } = await cluster(testInfo);
  // Not the node the undo test uses: the journal outlives the cluster's reset.
  const node = nodes.filter((n) => n.state === 'ready').at(-1)!.id;
  const reason = `RMA 5120 ${testInfo.project.name} ${Date.now()}`;
  await page.goto(`/nodes?confirm=cordon&node=${encodeURIComponent(node)}`);
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(/Reason/).fill(reason);
  await dialog.getByRole('button', { name: `Cordon ${node}` }).click();
  await expect(page.getByRole('status').first()).toContainText(`${node} is now cordoned`);
  await expect(async () => {
    await page.goto(`/events?node=${encodeURIComponent(node)}`);
    const rows = page.locator('table.events tbody tr').filter({ hasText: reason });
    await expect(rows, 'the attempt as sent and as done, one line').toHaveCount(1, { timeout: 500 });
    await expect(rows.first()).toContainText(new RegExp(`cordoned by .*: ${reason} — done`), { timeout: 500 });
    await expect(rows.first(), 'and the transition it caused').toContainText('node went ready → cordoned', { timeout: 500 });
    await expect(rows.first().getByRole('link', { name: node })).toBeVisible();
  }).toPass({ timeout: 15_000 });
});

test('the events page takes a From and a To and says its window in moments', async ({ page }, testInfo) => {
  await page.goto('/events?since=1h');
  if (withJs(testInfo)) await waitForIslands(page);
  await expect(page.locator('p.window')).toHaveText(/^Records from .+ UTC to now\.$/);
  await page.locator('input[name="from"]').fill('2026-01-02T03:04');
  await page.locator('input[name="to"]').fill('2026-01-03T00:00');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page).toHaveURL(/from=2026-01-02T03%3A04/);
  await expect(page.locator('p.window')).toHaveText('Records from 2026-01-02 03:04 UTC to 2026-01-03 00:00 UTC.');
  // The moments come back in their fields, for the next change.
  await expect(page.locator('input[name="from"]')).toHaveValue('2026-01-02T03:04');
  await expect(page.locator('input[name="to"]')).toHaveValue('2026-01-03T00:00');
});
