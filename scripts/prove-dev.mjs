// Proves that `make dev` still does what it is for: it serves the demo
// cluster, and a save rebuilds the console and reloads the open page by
// itself. Run by hand (`node scripts/prove-dev.mjs`), not by `make test`:
// its first run installs cargo-leptos, about 17 minutes on two cores.
//
// It changes the header's brand text in app/src/lib.rs, as an editor's save
// would, and puts the file back whatever happens. Ports 8080 and 3001 (the
// site and reload addresses in Cargo.toml) must be free.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SOURCE = resolve(ROOT, 'app/src/lib.rs');
const BRAND = '"llmgw console"';
const SAVED = '"llmgw console, saved"';
const SITE = 'http://127.0.0.1:8080';
const { chromium } = createRequire(resolve(ROOT, 'end2end/package.json'))('@playwright/test');

const original = readFileSync(SOURCE, 'utf8');
if (!original.includes(BRAND)) throw new Error(`${SOURCE} no longer holds ${BRAND}; update this script`);
const putBack = () => writeFileSync(SOURCE, original);

const started = Date.now();
const since = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const say = (line) => console.log(`prove-dev: ${line} (${since()})`);

// Its own process group, so that cargo leptos and the console stop with it.
const dev = spawn('make', ['dev'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
let log = '';
for (const stream of [dev.stdout, dev.stderr]) stream.on('data', (d) => { log += d; });
const stop = () => { try { process.kill(-dev.pid, 'SIGTERM'); } catch {} };
process.on('SIGINT', () => { putBack(); stop(); process.exit(130); });

async function until(what, check, minutes) {
  const deadline = Date.now() + minutes * 60_000;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (dev.exitCode !== null) throw new Error(`make dev ended while waiting for ${what}:\n${log.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`no ${what} after ${minutes} minutes:\n${log.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const executablePath = process.env.CHROMIUM_PATH ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
let browser;
let failed = false;
try {
  await until('page from make dev', async () => (await fetch(`${SITE}/healthz`)).ok, 40);
  say('make dev serves the demo cluster');
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.goto(`${SITE}/nodes`);
  await page.waitForSelector('table');
  // A mark that only this load of the page carries: a reload drops it.
  await page.evaluate(() => { window.beforeTheSave = true; });

  writeFileSync(SOURCE, original.replace(BRAND, SAVED));
  const saved = Date.now();
  say('saved app/src/lib.rs with a new brand text');
  await until('reload of the open page', async () => {
    const fresh = await page.evaluate(() => window.beforeTheSave !== true);
    const text = await page.textContent('header .brand');
    return fresh && text === SAVED.slice(1, -1);
  }, 15);
  say(`the open page reloaded by itself and shows the new text, ${((Date.now() - saved) / 1000).toFixed(0)} s after the save`);
} catch (e) {
  failed = true;
  console.error(`prove-dev: ${e.message}`);
} finally {
  putBack();
  await browser?.close();
  stop();
}
process.exit(failed ? 1 : 0);
