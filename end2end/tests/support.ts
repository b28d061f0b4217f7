import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, type Page, type TestInfo } from '@playwright/test';

export const BIN = resolve(__dirname, '../../target/release/llmgw-console');

export const PORTS = {
  noJs: { sim: 18101, console: 18081 },
  hydrated: { sim: 18102, console: 18082 },
};

/** Debian's Chromium unless CHROMIUM_PATH names another; Playwright's own otherwise. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

export function hydrated(testInfo: TestInfo): boolean {
  return testInfo.project.name === 'hydrated';
}

/** Changes a node's state behind the console's back, as another operator would. */
export async function setNodeStateInSimulator(testInfo: TestInfo, node: string, state: string) {
  const sim = testInfo.project.metadata.simulator as string;
  const response = await fetch(`${sim}/api/v1/nodes/${encodeURIComponent(node)}/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-llmgw-actor': 'end2end' },
    body: JSON.stringify({ state }),
  });
  expect(response.status).toBe(200);
}

/** Waits until the page has hydrated, so that clicks reach Leptos. */
export async function waitForHydration(page: Page) {
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-hydrated'));
}

export function nodeRow(page: Page, node: string) {
  return page.locator(`tr[data-node="${node}"]`);
}
