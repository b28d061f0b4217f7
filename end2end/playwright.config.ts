import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { BIN, PORTS, chromiumPath } from './tests/support';

// Every test runs twice: once with JavaScript off (the server-rendered page
// must read fully on its own) and once with it, the islands running. Each project gets its own
// simulator and console on ports free at the start of the run, and every
// test starts from the simulator's starting cluster (support.ts), so any test
// passes alone (`npx playwright test -g NAME`) as well as in the suite.
// Each console keeps its journal in a directory of its own, outside the tree.
const consoleCommand = (sim: number, port: number) =>
  `${BIN} --admin-api 127.0.0.1:${sim} --listen 127.0.0.1:${port} --refresh-seconds 1 --log warn ` +
  `--data-dir ${mkdtempSync(join(tmpdir(), 'llmgw-e2e-'))}`;

if (!existsSync(BIN)) {
  throw new Error(`${BIN} does not exist: run "make build" first`);
}

export default defineConfig({
  testDir: './tests',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 8_000 },
  reporter: [['list']],
  use: {
    launchOptions: {
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: [
    { command: `${BIN} simulate --listen 127.0.0.1:${PORTS.noJs.sim} --log warn`, url: `http://127.0.0.1:${PORTS.noJs.sim}/api/v1/nodes` },
    { command: consoleCommand(PORTS.noJs.sim, PORTS.noJs.console), url: `http://127.0.0.1:${PORTS.noJs.console}/healthz` },
    { command: `${BIN} simulate --listen 127.0.0.1:${PORTS.js.sim} --log warn`, url: `http://127.0.0.1:${PORTS.js.sim}/api/v1/nodes` },
    { command: consoleCommand(PORTS.js.sim, PORTS.js.console), url: `http://127.0.0.1:${PORTS.js.console}/healthz` },
  ],
  projects: [
    {
      name: 'no-js',
      use: { javaScriptEnabled: false, baseURL: `http://127.0.0.1:${PORTS.noJs.console}` },
      metadata: { simulator: `http://127.0.0.1:${PORTS.noJs.sim}` },
    },
    {
      name: 'js',
      use: { javaScriptEnabled: true, baseURL: `http://127.0.0.1:${PORTS.js.console}` },
      metadata: { simulator: `http://127.0.0.1:${PORTS.js.sim}` },
    },
  ],
});
