import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test as base, type Locator, type Page, type TestInfo } from '@playwright/test';

export const BIN = resolve(__dirname, '../../target/release/llmgw-console');

type Ports = { noJs: { sim: number; console: number }; js: { sim: number; console: number } };

/** Four ports nothing listens on, chosen once: the config is read again in
 * each worker, which inherits the environment of the run that chose them. */
function choosePorts(): Ports {
  if (!process.env.LLMGW_E2E_PORTS) {
    const script =
      "const net=require('net');const out=[];let n=0;" +
      "for(let i=0;i<4;i++){const s=net.createServer();s.listen(0,'127.0.0.1',()=>{out[i]=s.address().port;" +
      "if(++n===4){console.log(out.join(','));process.exit(0)}})}";
    process.env.LLMGW_E2E_PORTS = execFileSync(process.execPath, ['-e', script]).toString().trim();
  }
  const [a, b, c, d] = process.env.LLMGW_E2E_PORTS.split(',').map(Number);
  return { noJs: { sim: a, console: b }, js: { sim: c, console: d } };
}

export const PORTS = choosePorts();

/** Where the pages of a console of one cluster (`--admin-api`) live; an
 * address without it is sent there. */
export const BASE = '/c/default';

/** Debian's Chromium unless CHROMIUM_PATH names another; Playwright's own otherwise. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

export function withJs(testInfo: TestInfo): boolean {
  return testInfo.project.name === 'js';
}

function simulator(testInfo: TestInfo): string {
  return testInfo.project.metadata.simulator as string;
}

/** The console shares each answer of the admin API for one refresh period
 * (`--refresh-seconds 1` here): a change made behind its back shows after it. */
const PERIOD_MS = 1100;
export const afterOnePeriod = () => new Promise((resolve) => setTimeout(resolve, PERIOD_MS));

/** Every test starts from the simulator's starting cluster, so that each
 * passes alone and in any order. */
export const test = base.extend<{ freshCluster: void }>({
  freshCluster: [
    async ({}, use, testInfo) => {
      const response = await fetch(`${simulator(testInfo)}/_simulator/reset`, { method: 'POST' });
      expect(response.status).toBe(204);
      await afterOnePeriod();
      await use();
    },
    { auto: true },
  ],
});
export { expect };

type NodeView = { id: string; state: string; gpu_free: number; gpu_total: number; memory_gb: number; disk_total_gb: number; replicas: number; unhealthy: string[] };
type ModelView = { name: string; ready: number; min: number; total: number };
type Shard = { id: string; node: string; gpus: number[]; err: string };
type ReplicaView = { id: string; model: string; state: string; shards: Shard[]; idle_sec: number; err: string };
type OrphanView = { node: string; paths: string[]; bytes: number };
type Rejection = { profile: string; pool: string; node: string; reason: string };
type ExplainView = { model: string; placed: boolean; rejections: Rejection[] };

/** What the simulated admin API holds now: where expected values come from. */
export async function cluster(testInfo: TestInfo) {
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${simulator(testInfo)}/api/v1/${path}`);
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const nodes = await get<NodeView[]>('nodes');
  const models = await get<ModelView[]>('models');
  const replicas = await get<ReplicaView[]>('replicas');
  const orphans = await get<OrphanView[]>('weights/orphans');
  const explains = await Promise.all(
    models.map((m) => get<ExplainView>(`explain-placement?model=${encodeURIComponent(m.name)}`)),
  );
  return { nodes, models, replicas, orphans, explains };
}

/** Changes a node's state behind the console's back, as another operator would. */
export async function setNodeStateInSimulator(testInfo: TestInfo, node: string, state: string) {
  const response = await fetch(`${simulator(testInfo)}/api/v1/nodes/${encodeURIComponent(node)}/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-llmgw-actor': 'end2end' },
    body: JSON.stringify({ state }),
  });
  expect(response.status).toBe(200);
  await afterOnePeriod();
}

/** Collects orphaned weights on `node` straight from the admin API, as
 * another operator with llmgw ctl would. */
export async function collectInSimulator(testInfo: TestInfo, node: string) {
  const response = await fetch(`${simulator(testInfo)}/api/v1/weights/collect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-llmgw-actor': 'end2end' },
    body: JSON.stringify({ node }),
  });
  expect(response.status).toBe(200);
  await afterOnePeriod();
}

/** Waits until the page's islands run, so that clicks reach Leptos. */
export async function waitForIslands(page: Page) {
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-islands-ready'));
}

/** Makes the page keep every heartbeat its change stream brings, in order,
 * in `window.heard` (call before `goto`). */
export async function recordHeartbeats(page: Page) {
  await page.addInitScript(() => {
    const w = window as any;
    w.heard = [];
    const Real = window.EventSource;
    w.EventSource = class extends Real {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        this.addEventListener('message', (e) => w.heard.push(JSON.parse((e as MessageEvent).data)));
      }
    };
  });
}

/** Waits until the page's stream has brought `count` heartbeats: before
 * that, the page cannot tell that its console or admin API went away. */
export async function waitForHeartbeats(page: Page, count = 1) {
  await page.waitForFunction((n) => (window as any).heard.length >= n, count, { timeout: 10_000 });
}

export function nodeRow(page: Page, node: string) {
  return page.locator(`tr[data-node="${node}"]`);
}

/** The cell of `row` under the column headed `column` in the row's table. */
export async function cell(row: Locator, column: string): Promise<Locator> {
  const headers = await row.locator('xpath=ancestor::table[1]/thead//th').allTextContents();
  const index = headers.findIndex((h) => h.replace(/[▲▼]/g, '').trim() === column);
  if (index < 0) throw new Error(`no column "${column}" in ${JSON.stringify(headers)}`);
  return row.locator(':scope > th, :scope > td').nth(index);
}

/** A node row's state badge: the cell also says since when, from the
 * journal, under it. */
export async function stateBadge(row: Locator): Promise<Locator> {
  return (await cell(row, 'State')).locator('.state');
}

/** A size as the console shows it (the same rule as format::file_size). */
export function fileSize(bytes: number): string {
  const MIB = 2 ** 20;
  const GIB = 2 ** 30;
  if (bytes >= GIB) return `${(bytes / GIB).toFixed(1)} GB`;
  if (bytes >= MIB) return `${Math.round(bytes / MIB)} MB`;
  if (bytes > 0) return `${bytes} B`;
  return 'size unknown';
}

// Servers a test starts for itself (a cluster of another size, a console it
// stops), so that nothing it does disturbs another test; `stopOwn` after
// each test ends them.
let own: ChildProcess[] = [];

// The consoles a run starts keep their journal in a directory of its own:
// `make e2e` runs several Playwrights at once, and one journal between them
// would have their consoles take the recording from one another.
let ownData: string | undefined;
function ownDataDir(): string {
  ownData ??= mkdtempSync(join(process.env.LLMGW_E2E_DATA ?? tmpdir(), 'own-'));
  return ownData;
}

export function startOwn(args: string[], env: Record<string, string> = {}): ChildProcess {
  const data = args[0] === 'simulate' || args.includes('--data-dir') ? [] : ['--data-dir', ownDataDir()];
  const child = spawn(BIN, [...args, ...data, '--log', 'warn'], { stdio: 'ignore', env: { ...process.env, ...env } });
  return started(child);
}

function started(child: ChildProcess): ChildProcess {
  own.push(child);
  return child;
}

export function stopOwn() {
  own.forEach((c) => c.kill());
  own = [];
}

/** Starts a server of the test's own on a port the system picks, and
 * resolves to its address once it says it serves. A port chosen free
 * beforehand can be taken by another test's server before this one binds
 * it, and the test would then read that other server's cluster. */
export async function serveOwn(
  args: string[],
  options: { env?: Record<string, string>; bin?: string; cwd?: string; defaultDataDir?: boolean } = {},
): Promise<{ url: string; port: number; child: ChildProcess }> {
  const own = args[0] === 'simulate' || args.includes('--data-dir') || options.defaultDataDir;
  const data = own ? [] : ['--data-dir', ownDataDir()];
  const child = spawn(
    options.bin ?? BIN,
    [...args, '--listen', '127.0.0.1:0', ...data, '--log', 'warn,llmgw_console::startup=info'],
    { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  started(child);
  const url = await new Promise<string>((found, fail) => {
    let seen = '';
    const read = (chunk: Buffer) => {
      // Colours off, so that the address reads as it is printed.
      seen = (seen + chunk.toString()).replace(/\x1b\[[0-9;]*m/g, '').slice(-4096);
      const serving = /is serving[^\n]*?(http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (serving) found(serving[1]);
    };
    // Read to the end, found or not: a full pipe would stop the server.
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => fail(new Error(`${args.join(' ')} exited (${code}) before serving:\n${seen}`)));
    setTimeout(() => fail(new Error(`${args.join(' ')} did not say where it serves:\n${seen}`)), 30_000);
  });
  await waitFor(args[0] === 'simulate' ? `${url}/api/v1/nodes` : `${url}/healthz`);
  return { url, port: Number(new URL(url).port), child };
}

/** Waits until `url` answers 200, for a server a test started. */
export async function waitFor(url: string) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** Every view an operator can open from a link: each page, and each dialog
 * over the page it opens on. */
export async function everyView(testInfo: TestInfo): Promise<string[]> {
  const { nodes, models, orphans } = await cluster(testInfo);
  const node = encodeURIComponent(nodes[0].id);
  const withOrphans = encodeURIComponent(orphans[0]?.node ?? nodes[0].id);
  const unplaced = models.find((m) => m.ready < m.min) ?? models[0];
  return [
    '/',
    '/nodes',
    '/nodes?compact=1&cols=state,gpus,actions',
    `/nodes/${node}`,
    `/nodes?confirm=cordon&node=${node}`,
    `/nodes?confirm=drain&node=${node}`,
    `/nodes/${node}?confirm=uncordon&node=${node}`,
    '/models',
    `/models/${encodeURIComponent(unplaced.name)}/placement`,
    `/models/${encodeURIComponent(unplaced.name)}/placement?group=reason`,
    '/replicas',
    '/weights',
    '/weights?confirm=collect',
    `/weights?confirm=collect&node=${withOrphans}`,
    '/audit',
    '/events',
    '/events?since=2026-01-01T00:00&until=1h',
    '/jump?q=gpu',
    '/wall',
    '/wall?panels=models,trends&cycle=5',
    '/wall/setup',
    '/no-such-page',
  ];
}

/** Opens `path` and, when the page runs scripts, waits for its islands. */
export async function open(page: Page, testInfo: TestInfo, path: string) {
  await page.goto(path);
  if (withJs(testInfo)) await waitForIslands(page);
}
