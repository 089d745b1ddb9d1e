// Issue 21, item 1: a photo whose moment and small copy reached the family
// engine but whose full photo (its original) was refused as too large.
// The window never says the full photo is "on its way"; removing it from
// the Outbox offers the two true choices, and each does what it says:
// keep the moment without its full photo (the dialog, the viewer and the
// tile say so), or delete the moment too (a delete through the outbox,
// which reaches the engine).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, harness, rpc, choose, tab, shot, until, url, useLocalEngine, axe } from './lib.mjs';

let context;
let page;
let remote;

before(async () => {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', { maxMediaSize: 1_000_000 });
  await rpc('Settings/UseRemote', remote.url, remote.token);
  ({ context, page } = await launch({ width: 1280, height: 800 }));
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
});

after(async () => {
  await harness('/test/remote/start', {}).catch(() => {});
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** shots takes a picture of the page in light and in dark, and runs axe in both. */
async function shots(name) {
  const found = [];
  await shot(page, `${name}-light`);
  found.push(...(await axe(page, `${name}, light`)));
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, `${name}-dark`);
  found.push(...(await axe(page, `${name}, dark`)));
  await page.emulateMedia({ colorScheme: 'light' });
  // The aria-label on Moments' scroller is item 12's, not this test's.
  return found.filter((v) => !v.nodes.every((n) => n.startsWith('.scroller'))).map((v) => `${v.where}: ${v.id}`);
}

/** onItsWay lists what on screen says the full photo is on its way. */
async function onItsWay() {
  return page.evaluate(() => {
    const seen = [];
    for (const el of document.querySelectorAll('body *')) {
      if (el.children.length === 0 && /on its way/i.test(el.textContent) && el.getClientRects().length > 0) seen.push(el.textContent.trim());
    }
    return seen;
  });
}

async function moment(id) {
  const m = await rpc('Moments/Get', id);
  return m;
}

test('a photo whose full photo the engine refused: kept without it, or deleted too, and the window says so', async () => {
  const { paths } = await harness('/test/generate', { n: 2, big: true });
  await choose(page, paths);
  // Both reach the engine as a moment and a small copy, read by Pippa; the
  // originals are refused.
  const entries = await until(async () => {
    const es = await rpc('Outbox/Entries');
    const parked = es.filter((e) => e.state === 'parked' && e.steps[0].done && e.steps[1].done);
    return parked.length === 2 && parked;
  }, 'two originals refused, their moments and small copies taken', 90_000);
  const [kept, gone] = entries;
  for (const e of entries) {
    await until(async () => (await moment(e.moment_id)).readings.some((r) => r.status === 'finished'), 'Pippa read it', 60_000);
  }
  const violations = [];

  // Refused, not "on its way": the moment, the viewer and the tile say so.
  await tab(page, 'Moments');
  const tile = page.locator(`[data-testid=moment-tile][data-moment="${kept.moment_id}"]`);
  await until(async () => (await tile.getAttribute('data-full')) === 'refused', 'the tile knows the full photo was refused', 30_000);
  assert.match(await tile.innerText(), /Full photo not sent/);
  await tile.click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.waitFor();
  assert.match(await dialog.locator('figcaption').innerText(), /The full photo was not taken/);
  assert.deepEqual(await onItsWay(), [], 'nothing says “on its way”');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  // Remove from the list: two true choices, never "It is never sent, and Spark forgets it".
  await tab(page, 'Outbox');
  const entry = page.locator(`[data-testid=entry][data-entry="${kept.id}"]`);
  await entry.getByRole('button', { name: 'Remove from this list…' }).click();
  const ask = page.locator('dialog.confirm');
  await ask.waitFor();
  const said = await ask.innerText();
  assert.doesNotMatch(said, /never sent|Spark forgets it/, `it says nothing that isn't so: ${said}`);
  assert.match(said, /already kept/);
  violations.push(...(await shots('refused-remove-choices')));
  await ask.getByTestId('keep-without').click();
  await page.locator('#toasts .toast').filter({ hasText: 'Its moment stays in Moments, without its full photo.' }).waitFor();
  await until(async () => (await page.locator(`[data-testid=entry][data-entry="${kept.id}"]`).count()) === 0, 'the entry is removed');

  // Kept without its full photo: the dialog, the viewer and the tile say so.
  await tab(page, 'Moments');
  await until(async () => (await tile.getAttribute('data-full')) === 'none', 'the tile says it is kept without its full photo', 30_000);
  assert.match(await tile.innerText(), /Full photo not kept/);
  assert.deepEqual(await onItsWay(), [], 'nothing in Moments says “on its way”');
  violations.push(...(await shots('refused-kept-tile')));
  await tile.click();
  await dialog.waitFor();
  await dialog.locator('figcaption').filter({ hasText: 'Kept without its full photo' }).waitFor();
  assert.ok((await moment(kept.moment_id)).readings.some((r) => r.status === 'finished'), 'Pippa’s reading stays');
  assert.deepEqual(await onItsWay(), [], 'nothing in the moment says “on its way”');
  violations.push(...(await shots('refused-kept-moment')));
  await dialog.getByTestId('open-viewer').click();
  const note = page.getByTestId('viewer-note');
  await note.filter({ hasText: 'Kept without its full photo' }).waitFor();
  assert.deepEqual(await onItsWay(), [], 'nothing in the viewer says “on its way”');
  violations.push(...(await shots('refused-kept-viewer')));
  await page.getByTestId('viewer-close').click();
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  // The other: deleted too, through the outbox, and gone from the engine.
  await tab(page, 'Outbox');
  await page.locator(`[data-testid=entry][data-entry="${gone.id}"]`).getByRole('button', { name: 'Remove from this list…' }).click();
  await ask.getByTestId('delete-too').click();
  await page.locator('#toasts .toast').filter({ hasText: 'its moment is deleted' }).waitFor();
  await until(async () => {
    const r = await fetch(`${remote.url}/v1/moments/${gone.moment_id}`, { headers: { Authorization: `Bearer ${remote.token}` } });
    return r.status === 200 && Boolean((await r.json()).moment.deleted_at);
  }, 'the family engine has deleted the moment', 30_000);
  await tab(page, 'Moments');
  await until(async () => (await page.locator(`[data-testid=moment-tile][data-moment="${gone.moment_id}"]`).count()) === 0, 'the deleted moment leaves Moments', 30_000);
  assert.equal(await tile.count(), 1, 'the moment kept without its full photo stays');
  assert.deepEqual(violations, [], 'no axe-core violations');
});
