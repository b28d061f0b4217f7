import { spawn, type ChildProcess } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { BIN, hydrated, waitForHydration } from './support';

// Its own simulator and console, so that stopping the simulator disturbs
// no other test.
const SIM = 18097;
const CONSOLE = 18098;
let children: ChildProcess[] = [];

function start(args: string[]): ChildProcess {
  const child = spawn(BIN, [...args, '--log', 'warn'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function waitFor(url: string) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

test.afterEach(() => {
  children.forEach((c) => c.kill());
  children = [];
});

test('when the admin API goes away the last data stays, marked stale, and recovers', async ({ page }, testInfo) => {
  test.skip(!hydrated(testInfo), 'without JavaScript the page does not refresh itself');
  const simulator = start(['simulate', '--listen', `127.0.0.1:${SIM}`]);
  start(['--admin-api', `127.0.0.1:${SIM}`, '--listen', `127.0.0.1:${CONSOLE}`, '--refresh-seconds', '1']);
  await waitFor(`http://127.0.0.1:${SIM}/api/v1/nodes`);
  await waitFor(`http://127.0.0.1:${CONSOLE}/healthz`);

  await page.goto(`http://127.0.0.1:${CONSOLE}/nodes`);
  await waitForHydration(page);
  await expect(page.locator('.live-status')).toContainText('updated');

  simulator.kill();
  await expect(page.locator('.live-status')).toContainText('stale: refreshing has failed for');
  await expect(page.getByRole('alert')).toContainText(`cannot reach the llmgw admin API at http://127.0.0.1:${SIM}`);
  // The last good data is still there, under the error.
  await expect(page.locator('.stale-data tr[data-node="gpu-h100-01"]')).toBeVisible();

  start(['simulate', '--listen', `127.0.0.1:${SIM}`]);
  await expect(page.getByRole('alert')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator('.live-status')).not.toContainText('stale');
  await expect(page.locator('tr[data-node="gpu-h100-01"]')).toBeVisible();
});
