import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { BIN, PORTS, chromiumPath } from './tests/support';

// Every test runs twice: once with JavaScript off (the server-rendered page
// must read fully on its own) and once with it, the islands running. Each project gets its own
// simulator and console on ports free at the start of the run, and every
// test starts from the simulator's starting cluster (support.ts), so any test
// passes alone (`npx playwright test -g NAME`) as well as in the suite.
// Each console keeps its journal in a directory of its own, outside the tree,
// under one directory per run that teardown.ts removes. The config is read
// again in every worker: the environment makes them all agree on the one
// the runner made.
process.env.LLMGW_E2E_DATA ??= mkdtempSync(join(tmpdir(), 'llmgw-e2e-'));
const dataDir = (name: string) => {
  const dir = join(process.env.LLMGW_E2E_DATA!, name);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const consoleCommand = (sim: number, port: number) =>
  `${BIN} --admin-api 127.0.0.1:${sim} --listen 127.0.0.1:${port} --refresh-seconds 1 --log warn ` +
  `--data-dir ${dataDir(`console-${port}`)}`;

if (!existsSync(BIN)) {
  throw new Error(`${BIN} does not exist: run "make build" first`);
}

// `make e2e` runs the two projects side by side, one Playwright each
// (LLMGW_E2E_PROJECT names it): a project's tests take turns on its one
// cluster, but nothing of one project touches the other's.
const projects = [
  {
    name: 'no-js',
    use: { javaScriptEnabled: false, baseURL: `http://127.0.0.1:${PORTS.noJs.console}` },
    metadata: { simulator: `http://127.0.0.1:${PORTS.noJs.sim}` },
    servers: [
      { command: `${BIN} simulate --listen 127.0.0.1:${PORTS.noJs.sim} --log warn`, url: `http://127.0.0.1:${PORTS.noJs.sim}/api/v1/nodes` },
      { command: consoleCommand(PORTS.noJs.sim, PORTS.noJs.console), url: `http://127.0.0.1:${PORTS.noJs.console}/healthz` },
    ],
  },
  {
    name: 'js',
    use: { javaScriptEnabled: true, baseURL: `http://127.0.0.1:${PORTS.js.console}` },
    metadata: { simulator: `http://127.0.0.1:${PORTS.js.sim}` },
    servers: [
      { command: `${BIN} simulate --listen 127.0.0.1:${PORTS.js.sim} --log warn`, url: `http://127.0.0.1:${PORTS.js.sim}/api/v1/nodes` },
      { command: consoleCommand(PORTS.js.sim, PORTS.js.console), url: `http://127.0.0.1:${PORTS.js.console}/healthz` },
    ],
  },
];
const only = process.env.LLMGW_E2E_PROJECT;
if (only && !projects.some((p) => p.name === only)) {
  throw new Error(`LLMGW_E2E_PROJECT=${only} is not a project (${projects.map((p) => p.name).join(', ')})`);
}
const chosen = projects.filter((p) => !only || p.name === only);

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
  // Each run's own, so that one run's start does not clear another's.
  outputDir: only ? `test-results/${only}` : 'test-results',
  webServer: chosen.flatMap((p) => p.servers),
  globalTeardown: './teardown.ts',
  projects: chosen.map(({ servers: _, ...project }) => project),
});
