// Issue 12, the reading where Dad looks: the first lines of Pippa's reading
// on the Add photos card and on the Moments tile, arriving live (the app
// layer's "moment" event, no polling of the list) from a slow fake Pippa;
// the card opens its moment, whose dialog shows the reading first; a failed
// reading says what to do, with the raw error behind Details, and Try again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, harness, choose, tab, shot, until } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

after(async () => {
  await harness('/test/pippa', {});
});

/** rpcCalls records the bound methods the page calls from now on. */
function rpcCalls() {
  const calls = [];
  const on = (r) => {
    const m = r.url().match(/\/rpc\/(\w+\/\w+)/);
    if (m) calls.push(m[1]);
  };
  page.on('request', on);
  return { calls, stop: () => page.off('request', on) };
}

test('a slow Pippa: the card and the tile show the reading the moment it arrives, without polling the list', async () => {
  await harness('/test/pippa', { delayMs: 6000 });
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const card = page.getByTestId('card').first();
  await card.locator('[data-testid=card-reading]').filter({ hasText: /Waiting for Pippa|Pippa is reading/ }).waitFor();
  const id = await card.getAttribute('data-moment-id');
  assert.ok(id, 'the card knows its moment');
  await until(async () => (await card.getAttribute('data-state')) === 'sent', 'the photo sent');

  await tab(page, 'Moments');
  const tile = page.locator(`[data-testid=moment-tile][data-moment="${id}"]`);
  await tile.waitFor();
  await until(async () => /Waiting for Pippa|Pippa is reading/.test(await tile.innerText()), 'the tile says Pippa is on it');
  // From here on the reading must come by the event: the list is not read again.
  await new Promise((r) => setTimeout(r, 700)); // let a refresh already asked for settle
  const rec = rpcCalls();
  const started = Date.now();
  await tile.getByTestId('tile-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 30_000 });
  rec.stop();
  const listed = rec.calls.filter((c) => c === 'Moments/Page' || c === 'Moments/Get');
  assert.deepEqual(listed, [], `no list or moment reads while waiting for the reading (saw ${rec.calls.join(', ')})`);
  console.log(`# the reading showed on the tile ${Date.now() - started} ms after the watch began`);
  await shot(page, 'moments-reading');

  await tab(page, 'Add photos');
  await card.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor();
  await shot(page, 'capture-reading');

  // The card opens its moment; the dialog shows the reading first.
  await card.locator('.card-open').click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.waitFor();
  const first = await dialog.locator('.moment-body > *').first().getAttribute('data-testid');
  assert.equal(first, 'readings', 'the reading comes first in the dialog');
  assert.match(await dialog.getByTestId('readings').innerText(), /red door/);
  const box = await dialog.locator('[data-testid=reading-text]').first().boundingBox();
  const cap = await dialog.getByTestId('caption').boundingBox();
  assert.ok(box && cap && (box.y < cap.y || box.x > cap.x), 'the reading is above the caption');
  await shot(page, 'moment-reading-first');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  await harness('/test/pippa', {});
});

test('typing a caption while the reading arrives: the cursor and the words stay', async () => {
  await harness('/test/pippa', { delayMs: 4000 });
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const card = page.getByTestId('card').first();
  await until(async () => (await card.locator('.card-open').isEnabled()), 'the card can be opened');
  await card.locator('.card-open').click();
  const dialog = page.getByTestId('moment-dialog');
  const field = dialog.getByTestId('caption');
  await field.waitFor();
  await until(async () => (await field.isVisible()) && (await field.isEnabled()), 'the caption field');
  await field.click();
  await field.pressSequentially('The letter from', { delay: 20 });
  await dialog.locator('[data-testid=reading][data-status=finished]').filter({ hasText: 'red door' }).waitFor({ timeout: 30_000 });
  await field.pressSequentially(' the council', { delay: 20 });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'caption', 'the caption field keeps the cursor');
  assert.equal(await field.inputValue(), 'The letter from the council');
  await dialog.getByTestId('caption-state').filter({ hasText: 'Saved' }).waitFor();
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  await harness('/test/pippa', {});
});

test('a failed reading says what to do, keeps the raw error behind Details, and Try again reads it', async () => {
  await harness('/test/pippa', { refuse: true });
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const card = page.getByTestId('card').first();
  await card.getByTestId('card-reading').filter({ hasText: 'could not read' }).waitFor({ timeout: 30_000 });
  await card.locator('.card-open').click();
  const dialog = page.getByTestId('moment-dialog');
  const failed = dialog.locator('[data-testid=reading][data-status=failed]');
  await failed.waitFor();
  const said = await failed.locator('.error-text').innerText();
  assert.match(said, /Settings/, `a sentence that says what to do: ${said}`);
  assert.doesNotMatch(said, /127\.0\.0\.1|http:|seat/, `no addresses or plumbing in the sentence: ${said}`);
  const details = failed.locator('details');
  assert.equal(await details.getAttribute('open'), null, 'the detail is closed at first');
  await details.locator('summary').click();
  assert.match(await details.locator('pre').innerText(), /127\.0\.0\.1/, 'the raw error is behind Details');
  await shot(page, 'moment-failed');

  // Slow, so the toast (which ends once the new reading shows) is seen.
  await harness('/test/pippa', { delayMs: 3000 });
  await dialog.getByTestId('try-again').click();
  // The toast shows above the dialog, not under its backdrop.
  const t = page.locator('#toasts .toast').filter({ hasText: 'read it again' });
  await t.waitFor();
  assert.equal(await t.evaluate((el) => el.closest('dialog') !== null), true, 'the toast is inside the open dialog (top layer)');
  const hit = await t.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return el.contains(top);
  });
  assert.ok(hit, 'the toast is on top where it is drawn');
  await dialog.locator('[data-testid=reading][data-status=finished]').filter({ hasText: 'red door' }).waitFor({ timeout: 30_000 });
  await until(async () => (await t.count()) === 0, 'the toast ends once the new reading shows', 2000);
  await harness('/test/pippa', {});
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
});
