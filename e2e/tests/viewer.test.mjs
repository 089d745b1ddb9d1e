// Issue 12, a photo viewer: the whole window, the small copy at once and
// the original fetched on demand, zoom by wheel, pinch and keys, Fit and
// 1:1, pan, rotate for display, next and previous with the arrow keys,
// Escape to close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, harness, choose, tab, shot, until, cardOf } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

const view = async () =>
  page.getByTestId('viewer-img').evaluate((el) => ({
    source: el.dataset.source,
    scale: Number(el.dataset.scale),
    x: Number(el.dataset.x),
    y: Number(el.dataset.y),
    rot: Number(el.dataset.rot),
    w: el.naturalWidth,
    h: el.naturalHeight,
    src: el.getAttribute('src'),
  }));

test('the viewer: full window, small copy then the original, zoom, pan, fit, 1:1, rotate, next and previous, Escape', async () => {
  const small = await harness('/test/generate', { n: 2 });
  const big = await harness('/test/generate', { n: 1, big: true });
  await choose(page, [...small.paths, ...big.paths]);
  await until(async () => (await page.locator('[data-testid=card][data-state=sent]').count()) >= 3, 'three photos sent', 120_000);

  // The big photo's moment, found by its card.
  const { id: bigID } = await cardOf(page, big.paths[0]);
  await tab(page, 'Moments');
  await page.evaluate(() => (document.querySelector('[data-testid=moments-scroller]').scrollTop = 0));
  const tile = page.locator(`[data-testid=moment-tile][data-moment="${bigID}"]`);
  await tile.getByTestId('tile-reading').filter({ hasText: 'red door' }).waitFor();
  // The timeline redraws as readings and deliveries come in: click until
  // the dialog shows the big photo (a tile can move under the pointer).
  const dialog = page.getByTestId('moment-dialog');
  await until(async () => {
    if (await dialog.isVisible()) await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await tile.click();
    await dialog.waitFor();
    return (await dialog.getAttribute('data-moment-id')) === bigID;
  }, 'the big photo’s moment open');

  // Watch what the viewer's image shows, from the first frame.
  await page.evaluate(() => {
    window.__viewerSources = [];
    new MutationObserver(() => {
      const img = document.querySelector('[data-testid=viewer-img]');
      if (img && img.getAttribute('src') && window.__viewerSources.at(-1) !== img.dataset.source) window.__viewerSources.push(img.dataset.source);
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['src', 'data-source'] });
  });
  await dialog.getByTestId('open-viewer').click();
  const viewer = page.getByTestId('viewer');
  await viewer.waitFor();
  const vp = page.viewportSize();
  const box = await viewer.boundingBox();
  assert.ok(box.width >= vp.width - 1 && box.height >= vp.height - 1, `the viewer fills the window (${JSON.stringify(box)})`);

  await until(async () => (await view()).source === 'original', 'the original loaded');
  let v = await view();
  assert.deepEqual([v.w, v.h], [4000, 3000], 'the original, at full size');
  assert.deepEqual(await page.evaluate(() => window.__viewerSources), ['copy', 'original'], 'the small copy first, then the original');
  const stage = await page.getByTestId('viewer-stage').boundingBox();
  const fit = Math.min(stage.width / 4000, stage.height / 3000);
  assert.ok(Math.abs(v.scale - fit) < 0.002, `fitted (${v.scale} vs ${fit})`);
  await shot(page, 'viewer');

  // Wheel: zooms in around the pointer.
  await page.mouse.move(stage.x + stage.width / 2 + 100, stage.y + stage.height / 2);
  await page.mouse.wheel(0, -400);
  await until(async () => (await view()).scale > fit * 1.5, 'the wheel zooms in');
  // Keys: 1 is actual size, 0 fits, + and - step.
  await page.keyboard.press('1');
  v = await view();
  assert.equal(v.scale, 1, '1:1');
  await shot(page, 'viewer-actual-size');
  await page.keyboard.press('0');
  assert.ok(Math.abs((await view()).scale - fit) < 0.002, 'Fit again');
  await page.keyboard.press('+');
  assert.ok(Math.abs((await view()).scale - fit * 1.25) < 0.002, '+ zooms in a step');
  await page.keyboard.press('-');
  assert.ok(Math.abs((await view()).scale - fit) < 0.002, '- zooms out a step');
  await page.getByTestId('viewer-zoom-in').click();
  assert.ok((await view()).scale > fit, 'the + button');
  await page.getByTestId('viewer-fit').click();
  await page.getByTestId('viewer-actual').click();
  assert.equal((await view()).scale, 1, 'the 1:1 button');

  // Pan: drag the photo.
  const before = await view();
  const cx = stage.x + stage.width / 2;
  const cy = stage.y + stage.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx + 150, cy + 80, { steps: 5 });
  await page.mouse.up();
  const after = await view();
  assert.ok(Math.abs(after.x - before.x - 150) < 2 && Math.abs(after.y - before.y - 80) < 2, `the drag pans (${before.x},${before.y} -> ${after.x},${after.y})`);

  // Pinch: two fingers moving apart zoom in.
  await page.getByTestId('viewer-fit').click();
  await page.evaluate(({ cx, cy }) => {
    const el = document.querySelector('[data-testid=viewer-stage]');
    const ev = (type, id, x) => el.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: x, clientY: cy, bubbles: true, isPrimary: id === 11 }));
    ev('pointerdown', 11, cx - 50);
    ev('pointerdown', 12, cx + 50);
    for (let i = 1; i <= 5; i++) {
      ev('pointermove', 11, cx - 50 - i * 20);
      ev('pointermove', 12, cx + 50 + i * 20);
    }
    ev('pointerup', 11, cx - 150);
    ev('pointerup', 12, cx + 150);
  }, { cx, cy });
  const pinched = (await view()).scale;
  assert.ok(Math.abs(pinched - fit * 3) < 0.01, `the pinch zooms with the fingers (${pinched} vs ${fit * 3})`);

  // Rotate, for display.
  await page.getByTestId('viewer-rotate').click();
  assert.equal((await view()).rot, 90);
  await shot(page, 'viewer-rotated');

  // Next and previous with the arrow keys.
  const count = page.getByTestId('viewer-count');
  const total = Number((await count.innerText()).split(' of ')[1]);
  assert.ok(total >= 3, `several photos to step through (${await count.innerText()})`);
  assert.match(await count.innerText(), /^1 of /);
  const firstSrc = (await view()).src;
  await page.keyboard.press('ArrowRight');
  await until(async () => /^2 of /.test(await count.innerText()), 'the next photo');
  assert.notEqual((await view()).src, firstSrc);
  assert.equal((await view()).rot, 0, 'each photo starts upright');
  await page.keyboard.press('ArrowLeft');
  await until(async () => /^1 of /.test(await count.innerText()), 'back to the first');

  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'hidden' });
  assert.ok(await dialog.isVisible(), 'Escape closes the viewer, not the moment');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
});
