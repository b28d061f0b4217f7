// The screenshots in README.md and docs/, taken from the release binary on its demo
// cluster in the same Chromium the end-to-end suite uses:
// `node scripts/screenshots.mjs` after `make build`.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = resolve(ROOT, 'target/release/llmgw-console');
const { chromium } = createRequire(resolve(ROOT, 'end2end/package.json'))('@playwright/test');

const port = await new Promise((ok) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => ok(port));
  });
});
const console_ = spawn(BIN, ['--demo', '--listen', `127.0.0.1:${port}`, '--log', 'warn'], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/healthz`)).ok) break;
  } catch {}
  if (i > 200) throw new Error('the console did not come up');
  await new Promise((r) => setTimeout(r, 50));
}

const executablePath = process.env.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await page.goto(`${base}/wall`);
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
  await page.waitForTimeout(1500);
  await page.screenshot({ path: resolve(ROOT, 'docs/wall.png') });
  console.log('docs/wall.png');

  // The page a chat link opens on a phone at 3 a.m.
  const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2 });
  await phone.goto(`${base}/models`);
  const explain = await phone.locator('tr', { hasText: 'not placed' }).locator('a[href$="/placement"]').first().getAttribute('href');
  await phone.goto(`${base}${explain}`);
  await phone.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
  await phone.screenshot({ path: resolve(ROOT, 'docs/phone.png') });
  console.log('docs/phone.png');

  // The explanation an operator pastes into a chat, grouped by reason.
  const wide = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await wide.goto(`${base}${explain}?group=reason`);
  await wide.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
  await wide.screenshot({ path: resolve(ROOT, 'docs/explain-placement.png') });
  console.log('docs/explain-placement.png');

  // One line per action: a cordon with its reason, as the events page says it.
  await wide.goto(`${base}/nodes`);
  const node = await wide.locator('tbody tr[data-node]').nth(1).getAttribute('data-node');
  await wide.goto(`${base}/nodes?confirm=cordon&node=${encodeURIComponent(node)}`);
  await wide.getByRole('dialog').getByLabel(/Reason/).fill('NVLink errors, RMA 5120');
  await wide.getByRole('dialog').getByRole('button', { name: `Cordon ${node}` }).click();
  await wide.waitForSelector('section.receipt');
  for (let i = 0; ; i++) {
    await wide.goto(`${base}/c/eu/events`);
    if (await wide.locator('table.events td', { hasText: 'node went ready → cordoned' }).count()) break;
    if (i > 60) throw new Error('the cordon never reached the events page');
    await wide.waitForTimeout(1000);
  }
  await wide.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
  await wide.screenshot({ path: resolve(ROOT, 'docs/events.png') });
  console.log('docs/events.png');

  const dark = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  const nodes = await dark.newPage();
  await nodes.goto(`${base}/nodes?compact=1`);
  await nodes.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
  await nodes.screenshot({ path: resolve(ROOT, 'docs/dark.png') });
  console.log('docs/dark.png');
} finally {
  await browser.close();
  console_.kill();
}
