import type { Page } from '@playwright/test';
import { expect, serveOwn, stopOwn, test, waitForIslands, withJs } from './support';

// Each test starts its own simulator and console, refreshing every 0.1 s.
test.afterEach(stopOwn);

// A tab stays open for days (a wall screen, a node list): it must not grow.
// A refresh period of 0.1 s and a node's state flipped every 0.1 s give a
// thousand pushed updates in a few minutes (a page reads only when the
// cluster changed).
//
// Both must grow less than 5 % from the 100th to the 1,000th update. WASM
// memory only grows, by 64 KiB pages, and one page is already more than 5 %
// of this tab's: the budget means not one page more. (It used to gain one
// every 400 to 600 updates: each render awaited its data in a `Suspend`,
// which left a subscriber behind on the resource; see `components::live`.)
const JS_HEAP_BUDGET = 0.05;
const WASM_BUDGET = 0.05;

/** The page's WASM linear memory, in bytes: initialising the page's own
 * module again hands back the running instance's exports, its memory among
 * them. */
function wasmMemory(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const url = document.querySelector('link[rel="modulepreload"]')!.getAttribute('href')!;
    const mod = await import(url);
    const exports = await mod.default();
    return exports.memory instanceof WebAssembly.Memory ? exports.memory.buffer.byteLength : 0;
  });
}
// The wall, and a table page. An update reads the page on screen again and
// patches it (`components::live_document`).
for (const path of ['/wall', '/nodes']) {
  test(`a thousand updates of ${path} against a changing cluster do not grow the heap`, async ({ page }, testInfo) => {
    test.skip(!withJs(testInfo), 'without JavaScript the page does not update');
    test.setTimeout(420_000);
    const { port: sim } = await serveOwn(['simulate']);
    const { port } = await serveOwn(['--admin-api', `127.0.0.1:${sim}`, '--refresh-seconds', '0.1']);
    const nodes = (await (await fetch(`http://127.0.0.1:${sim}/api/v1/nodes`)).json()) as { id: string }[];
    // Counted in the page: listening from Playwright would make DevTools keep
    // every response, and the heap would grow by the test's own doing.
    await page.addInitScript(() => {
      (window as any).updates = 0;
      new PerformanceObserver((list) => {
        (window as any).updates += list
          .getEntries()
          .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'fetch' && new URL(e.name).pathname === location.pathname).length;
      }).observe({ type: 'resource' });
    });
    const updates = () => page.evaluate(() => (window as any).updates as number);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((m) => m.name === 'JSHeapUsedSize')!.value;
    };
    let flips = 0;
    const cordoned = new Set<string>();
    const changing = setInterval(() => {
      // Each flip really changes a node, so each is pushed.
      const node = nodes[flips++ % nodes.length].id;
      const state = cordoned.has(node) ? 'ready' : 'cordoned';
      if (state === 'cordoned') cordoned.add(node);
      else cordoned.delete(node);
      fetch(`http://127.0.0.1:${sim}/api/v1/nodes/${encodeURIComponent(node)}/state`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-llmgw-actor': 'end2end' },
        body: JSON.stringify({ state }),
      }).catch(() => {});
    }, 100);
    try {
      await page.goto(`http://127.0.0.1:${port}${path}`);
      await waitForIslands(page);
      await expect.poll(updates, { timeout: 60_000, intervals: [500] }).toBeGreaterThanOrEqual(100);
      const early = await heap();
      const earlyWasm = await wasmMemory(page);
      await expect.poll(updates, { timeout: 360_000, intervals: [1_000] }).toBeGreaterThanOrEqual(1_000);
      const late = await heap();
      const lateWasm = await wasmMemory(page);
      const growth = (late - early) / early;
      console.log(`${path}: JS heap after 100 updates ${early} B, after ${await updates()}: ${late} B (${(growth * 100).toFixed(1)} %); WASM memory ${earlyWasm} -> ${lateWasm} B`);
      expect(growth).toBeLessThan(JS_HEAP_BUDGET);
      expect(earlyWasm).toBeGreaterThan(0);
      expect((lateWasm - earlyWasm) / earlyWasm).toBeLessThan(WASM_BUDGET);
      if (path === '/wall') await expect(page.locator('.wall-panel')).toHaveCount(5);
    } finally {
      clearInterval(changing);
    }
  });
}
