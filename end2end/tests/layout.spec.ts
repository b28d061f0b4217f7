import { everyView, expect, open, test } from './support';

// A phone from a chat link, and a laptop: no page scrolls sideways, and
// every control on it (buttons, dialog links, sort headers) can be clicked
// where it is: not off screen, not under the kept first column.
for (const [width, height] of [[360, 740], [1280, 800]]) {
  test(`at ${width}x${height} no page scrolls sideways and every action is reachable`, async ({ page }, testInfo) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width, height });
    for (const path of await everyView(testInfo)) {
      await open(page, testInfo, path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${path} scrolls sideways by ${overflow}px`).toBeLessThanOrEqual(0);
      // Under an open dialog only the dialog's own controls are meant to be reached.
      const dialogOpen = (await page.locator('.dialog').count()) > 0;
      const controls = dialogOpen
        ? page.locator('.dialog a:visible, .dialog button:visible')
        : page.locator('main button:visible, main a.button:visible, main th a:visible, .filter-bar input:visible');
      const count = await controls.count();
      for (let i = 0; i < count; i++) {
        const control = controls.nth(i);
        const name = `${path}: ${await control.evaluate((el) => el.outerHTML.slice(0, 120))}`;
        await control.click({ trial: true, timeout: 3_000 }).catch((error) => {
          throw new Error(`${name} cannot be clicked: ${error.message.split('\n')[0]}`);
        });
      }
    }
  });
}

test('the explanation reads on a phone without sideways scrolling inside it either', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 360, height: 740 });
  const views = await everyView(testInfo);
  await open(page, testInfo, views.find((v) => v.endsWith('/placement'))!);
  const rejections = page.locator('table.rejections');
  await expect(rejections).toBeVisible();
  // Each rejection is a block of its own, every field labelled.
  const scroll = await rejections.evaluate((t) => t.scrollWidth - t.clientWidth);
  expect(scroll).toBeLessThanOrEqual(0);
  const firstRow = rejections.locator('tbody tr').first();
  await expect(firstRow.locator('td.reason')).toBeVisible();
  const box = (await firstRow.boundingBox())!;
  expect(box.width).toBeLessThanOrEqual(360);
});
