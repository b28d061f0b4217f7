import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, expect, serveOwn, stopOwn, test, waitForIslands, withJs } from './support';

// The binary is all an operator gets: copied alone into an empty directory,
// it must serve its pages, styles and WASM from memory.
let dir: string;
let base = '';

async function start(args: string[]) {
  dir = mkdtempSync(join(tmpdir(), 'llmgw-console-'));
  const bin = join(dir, 'llmgw-console');
  copyFileSync(BIN, bin);
  base = (await serveOwn(args, { bin, cwd: dir, defaultDataDir: true })).url;
}

test.afterEach(() => {
  stopOwn();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('alone in an empty directory, --demo serves the node table and brotli WASM', async ({ page }, testInfo) => {
  await start(['--demo']);
  // Two demo clusters: the overview of both, then the first one's own.
  const overview = await (await fetch(`${base}/`)).text();
  expect(overview.match(/<tr[^>]* data-cluster="/g) ?? []).toHaveLength(2);
  const html = await (await fetch(`${base}/c/eu/`)).text();
  const node = html.match(/<tr data-node="([^"]+)"/)?.[1];
  expect(node, 'the node table is rendered on the server').toBeTruthy();

  // The page names its code by the build, and those files are kept for good.
  const wasmPath = html.match(/href="(\/pkg\/[^"\/]+\/llmgw-console\.wasm)"/)?.[1];
  expect(wasmPath, 'the page names its WASM under the build').toBeTruthy();
  const wasm = await fetch(`${base}${wasmPath}`, { headers: { 'accept-encoding': 'br' } });
  expect(wasm.status).toBe(200);
  expect(wasm.headers.get('content-type')).toBe('application/wasm');
  expect(wasm.headers.get('content-encoding')).toBe('br');
  expect(wasm.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  const css = await fetch(`${base}${wasmPath!.replace(/\.wasm$/, '.css')}`);
  expect(css.headers.get('content-type')).toBe('text/css');

  await page.goto(`${base}/nodes`);
  await expect(page.locator(`tr[data-node="${node}"]`)).toBeVisible();
  if (withJs(testInfo)) await waitForIslands(page);
});

test('pointed at nothing, it serves a whole page that names the address', async ({ page }) => {
  await start(['--admin-api', '127.0.0.1:1']);
  const response = await page.goto(`${base}/nodes`);
  expect(response?.status()).toBe(200);
  await expect(page.getByRole('alert')).toContainText('cannot be reached');
  await expect(page.getByRole('alert')).toContainText('http://127.0.0.1:1');
  await expect(page.getByRole('heading', { name: 'Nodes' })).toBeVisible();
});
