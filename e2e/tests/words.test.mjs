// Issue 36, item 11: the words Dad reads. Settings and the viewer speak
// of places and people, not of engines, tokens, models, gigabytes or a
// loopback address (those are behind Details, for whoever looks after the
// family engine); a card's name is never cut mid-word; a tile and the
// moment say nothing of file types; the viewer says what Dad can do with
// a photo it can't show in full; a note's dialog says nothing of a photo;
// the empty Moments screen has an "Add photos" button.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localWindow, harness, choose, cardOf, rpc, tab, until, axe, shot, looks, useLocalEngine } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));
after(useLocalEngine);

/** jargon is what Dad should not read on the face of a screen: an engine
 * other than "the family engine", tokens, models, gigabytes, an address. */
const jargon = [/(?<!family )\bengines?\b/i, /\btokens?\b/i, /\bmodels?\b/i, /\bGB\b/, /127\.0\.0\.1|localhost|https?:\/\//, /\bllava\b/i, /\bloopback\b/i, /\bHEIC\b/, /\b1:1\b/];

/** face is the text of el that shows, closed Details left out (innerText
 * skips what a closed <details> hides), and its fields' placeholders. */
const face = (el) =>
  el.evaluate((e) => [e.innerText, ...Array.from(e.querySelectorAll('input:not([type=hidden])')).filter((i) => i.checkVisibility()).map((i) => i.placeholder)].join('\n'));

function plain(text, where) {
  for (const re of jargon) assert.doesNotMatch(text, re, `${where} says ${text.match(re)?.[0]}: ${text.slice(Math.max(0, (text.match(re)?.index ?? 0) - 80), (text.match(re)?.index ?? 0) + 80)}`);
}

/** openDetails opens every closed Details in el and returns its text. */
async function openDetails(el) {
  await el.evaluate((e) => e.querySelectorAll('details').forEach((d) => (d.open = true)));
  return el.innerText();
}

test('Settings on this computer speaks plainly; the address and the model are behind Details', async () => {
  const was = (await rpc('Settings/Get')).pippa;
  await rpc('Settings/SetPippa', { url: 'http://127.0.0.1:9/v1', model: 'llava-test', key: '' });
  await tab(page, 'Settings');
  const s = page.locator('section.settings');
  await s.getByTestId('pippa-now').waitFor();
  await until(async () => /Pippa/.test(await s.getByTestId('pippa-now').innerText()), 'Pippa’s line');
  plain(await face(s), 'Settings');
  // Light, dark and 200%: axe-core finds nothing.
  assert.deepEqual(await looks(page, 'words-settings'), []);
  const inside = await openDetails(s);
  const st = await rpc('Settings/Get');
  assert.ok(inside.includes(st.local_url), `Details give this computer’s address ${st.local_url}`);
  assert.match(inside, /llava-test/, 'Details give Pippa’s model');
  assert.match(inside, /127\.0\.0\.1:9\/v1/, 'Details give Pippa’s address');
  assert.deepEqual(await axe(page, 'Settings, Details open'), []);
  await shot(page, 'words-settings-details');
  await rpc('Settings/SetPippa', { url: was.url, model: was.model, key: was.key ?? '' });
});

test('Settings on the family engine speaks plainly; the address and the key are behind Details', async () => {
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', {});
  await tab(page, 'Moments');
  await rpc('Settings/UseRemote', remote.url, remote.token);
  await page.reload();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
  await tab(page, 'Settings');
  const s = page.locator('section.settings');
  await s.getByTestId('connected-to').waitFor();
  await s.getByTestId('sync-block').waitFor();
  plain(await face(s), 'Settings on the family engine');
  assert.deepEqual(await looks(page, 'words-settings-family'), []);
  const inside = await openDetails(s);
  assert.ok(inside.includes(remote.url), `Details give the family engine’s address ${remote.url}`);
  assert.equal(await s.locator('input[type=password]').first().inputValue(), remote.token, 'Details hold the key');
  assert.deepEqual(await axe(page, 'Settings on the family engine, Details open'), []);
  await rpc('Settings/UseLocal');
  await page.reload();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'this computer' }).waitFor();
});

test('a card’s name is never cut in the middle of a word', async () => {
  const { paths } = await harness('/test/generate', { n: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'spark-words-'));
  const name = 'Grandma Edith’s seventieth birthday party in the garden at Whitby with everyone.jpg';
  const path = join(dir, name);
  copyFileSync(paths[0], path);
  await choose(page, [path]);
  const { card } = await cardOf(page, path);
  const el = card.locator('.name');
  const shown = await el.innerText();
  const clipped = await el.evaluate((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1);
  assert.equal(clipped, false, `the name is not clipped by its box: “${shown}”`);
  if (shown !== name) {
    assert.match(shown, /…$/, `a shortened name ends with …: “${shown}”`);
    const kept = shown.slice(0, -1).trimEnd();
    assert.ok(name.startsWith(kept), `“${shown}” is the start of the name`);
    assert.match(name.slice(kept.length), /^[\s._-]/, `“${shown}” ends at the end of a word`);
  }
  assert.equal(await el.getAttribute('title'), name, 'the whole name is its title');
  await shot(page, 'words-card-name');
});

test('a note’s dialog says nothing of a photo; no tile speaks of file types', async () => {
  await tab(page, 'Add photos');
  const words = `A note for the words test ${Date.now()}`;
  await page.getByLabel('Or write a note').fill(words);
  await page.getByTestId('keep-note').click();
  await tab(page, 'Moments');
  await page.evaluate(() => (document.querySelector('[data-testid=moments-scroller]').scrollTop = 0));
  const tile = page.getByTestId('moment-tile').filter({ hasText: words });
  await tile.waitFor();
  await tile.click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.waitFor();
  const said = await dialog.locator('.meta').first().innerText();
  assert.doesNotMatch(said, /photo/i, `a note’s dialog says nothing of a photo: ${said}`);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  // Every tile's words.
  for (const t of await page.getByTestId('moment-tile').all()) plain(await t.innerText(), 'A tile');
});

test('the moment’s picture and the viewer speak plainly, and say what Dad can do with a photo the window can’t show in full', async () => {
  await page.keyboard.press('Escape');
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const { card, id } = await cardOf(page, paths[0]);
  await until(async () => (await card.getAttribute('data-state')) === 'sent', 'the photo sent', 120_000);
  // The engine says its original is a HEIC file, which the window can't draw.
  await page.route('**/rpc/Moments/Get', async (route) => {
    const r = await route.fetch();
    const out = await r.json();
    if (out.result?.original) out.result.original.content_type = 'image/heic';
    await route.fulfill({ response: r, json: out });
  });
  // A note kept just before: its toast is still up when the viewer opens.
  await page.getByLabel('Or write a note').fill(`A note before the viewer ${Date.now()}`);
  await page.getByTestId('keep-note').click();
  const toastShown = page.locator('#toasts .toast').filter({ hasText: 'Note kept' }).last(); // the newest
  await toastShown.waitFor();
  await card.locator('.card-open').click();
  const dialog = page.getByTestId('moment-dialog');
  await until(async () => (await dialog.getAttribute('data-moment-id')) === id, 'the photo’s moment open');
  // The moment's picture: how to see it large; its kind behind Details.
  const caption = dialog.locator('figcaption');
  await until(async () => /see it large/.test(await caption.innerText()), 'the picture’s words with its full photo here');
  plain(await face(caption), 'The moment’s picture');
  assert.match(await openDetails(caption), /HEIC/, 'its kind behind Details');
  await dialog.getByTestId('open-viewer').click();
  const viewer = page.getByTestId('viewer');
  await viewer.waitFor();
  const note = viewer.getByTestId('viewer-note');
  // The toast, held under the pointer, covers none of what the viewer says.
  await toastShown.hover();
  await note.waitFor();
  const [t, n] = [await toastShown.boundingBox(), await note.boundingBox()];
  const overlap = t.x < n.x + n.width && n.x < t.x + t.width && t.y < n.y + n.height && n.y < t.y + t.height;
  assert.equal(overlap, false, `the toast (${JSON.stringify(t)}) covers the viewer’s words (${JSON.stringify(n)})`);
  await page.mouse.move(5, 400);
  await until(async () => /full/i.test(await note.innerText()) && !/Loading/.test(await note.innerText()), 'the viewer’s note on the full photo');
  const said = await note.innerText();
  plain(await face(viewer), 'The viewer');
  assert.match(said, /open it|on the phone|computer it came from/i, `it says what Dad can do: ${said}`);
  assert.deepEqual(await looks(page, 'words-viewer-cant-show'), []);
  await page.unroute('**/rpc/Moments/Get');
  await page.keyboard.press('Escape');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
});

test('the empty Moments screen has an Add photos button that opens Add photos', async () => {
  await page.route('**/rpc/Moments/Page', (route) => route.fulfill({ json: { result: { moments: [], next: '' } } }));
  await page.reload();
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  await tab(page, 'Moments');
  const screen = page.locator('section.screen[aria-label=Moments]');
  const add = screen.getByRole('button', { name: 'Add photos' });
  await add.waitFor();
  assert.deepEqual(await looks(page, 'words-moments-empty'), []);
  await add.click();
  await page.getByTestId('dropzone').waitFor();
  assert.equal(await screen.isVisible(), false, 'Moments gave way to Add photos');
  await page.unroute('**/rpc/Moments/Page');
});
