// Issue 37, "Done when": on 2 cores, a photo's words reach search within
// 60 s of its capture while 100 photos are imported at once, and the
// window stays responsive meanwhile. Dad adds 100 photos at once through
// "Choose photos…": 97 with no text (scenes drawn in the page, each its
// own) and 3 printed letters, each with a reference number only it holds,
// first, in the middle and last of his selection. While they come in he
// types into search. The test measures how long each keystroke takes to
// show in the box, the window's longest stall, how soon each letter is
// found by its number after its card showed, and how soon all 100 have
// their words; it prints them beside the issue's goals. It asserts only
// what must hold on any machine: every letter found, the box holds what
// was typed, search answers during the import. Timings are printed, not
// asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { localWindow, choose, until, rpc, letter, scene, appMoments } from './lib.mjs';

let context;
let page;
localWindow((w) => ({ context, page } = w), { readWords: true });

const s = (ms) => (ms / 1000).toFixed(1);
const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? (v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : NaN;
};

/** meters installs, in the window, what the test reads back: when each
 * capture card learns its moment (the photo captured), how long each key
 * pressed in the search box takes to show there (from the key's event to
 * the next frame), and the main thread's stalls (long tasks, and the
 * longest gap between two frames). */
async function meters() {
  await page.evaluate(() => {
    const m = { cards: {}, keys: [], longtasks: [], gap: 0, last: 0, on: true };
    window.__import = m;
    const seen = () => {
      for (const card of document.querySelectorAll('[data-testid=card][data-moment-id]')) {
        const name = card.querySelector('.name')?.getAttribute('title');
        if (name && !m.cards[name]) m.cards[name] = { id: card.dataset.momentId, at: Date.now() };
      }
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-moment-id'] });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (m.on) m.longtasks.push(e.duration);
    }).observe({ type: 'longtask' });
    const frame = (t) => {
      if (!m.on) return;
      if (m.last) m.gap = Math.max(m.gap, t - m.last);
      m.last = t;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const box = document.querySelector('[data-testid=search-box]');
    box.addEventListener('keydown', (e) => {
      const at = e.timeStamp;
      const handled = performance.now();
      requestAnimationFrame(() => m.keys.push({ key: e.key, wait: handled - at, shown: performance.now() - at, value: box.value }));
    });
  });
}

/** type types q into the search box a key at a time, as a person types
 * (a key every 120 ms), and waits for search's answer to it. It returns
 * how long each key took to show, and the search's own time. */
async function type(q) {
  const box = page.getByTestId('search-box');
  await box.click();
  await box.fill('');
  await page.evaluate(() => (window.__import.keys = []));
  for (const ch of q) {
    await page.keyboard.type(ch);
    await new Promise((r) => setTimeout(r, 120));
  }
  const status = page.getByTestId('search-status');
  await until(async () => (await status.innerText()).includes(`“${q}”`), `search's answer to “${q}”`, 60_000);
  const keys = await page.evaluate(() => window.__import.keys);
  const ms = Number(await page.locator('section.search').getAttribute('data-ms'));
  return { keys, value: await box.inputValue(), status: await status.innerText(), results: await page.getByTestId('search-result').count(), ms };
}

test('100 photos imported at once: each letter found by its number, the window responsive', async () => {
  page.on('pageerror', (e) => console.log(`# page error: ${e.message}`));
  // The photos, drawn in a page of their own.
  let t = Date.now();
  const art = await context.newPage();
  const refs = ['4417', '6093', '3158'];
  const letters = [];
  for (const [i, ref] of refs.entries()) {
    letters.push(await letter(art, ['Harbour Gas and Power', `Your reference HG/${ref}/B`, `Account ${i + 2}0415`, 'Amount due 63.10', 'Please pay by 14 January'], { width: 1600, height: 1200 }));
  }
  const scenes = [];
  for (let i = 0; i < 97; i++) scenes.push(await scene(art, 1000 + i));
  await art.close();
  const paths = [letters[0], ...scenes.slice(0, 48), letters[1], ...scenes.slice(48), letters[2]];
  assert.equal(paths.length, 100);
  const at = [0, 49, 99];
  console.log(`# 100 photos drawn (1600x1200; 97 scenes as JPEG, 3 letters as PNG at places ${at.map((i) => i + 1).join(', ')}) in ${s(Date.now() - t)} s`);

  await meters();
  console.log(`# load average before the import: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const start = Date.now();
  await choose(page, paths);
  const name = (p) => p.split(/[\\/]/).pop();
  const cards = () => page.evaluate(() => window.__import.cards);

  // Dad types while the photos come in.
  const early = await type('red door');
  const typedAt = Date.now();
  const captured = Object.keys(await cards()).length;

  // Each letter is found by its number; all 100 read. The reader reads
  // the newest first, so the first letter comes last: everything is read
  // before the test can end: about 25 s on 2 cores. 600 s is far past it,
  // also for a reader as slow as before its first look (230 to 300 s).
  const found = {};
  const worded = {};
  let capturedAt = 0;
  let allAt = 0;
  let middle = null;
  const deadline = start + 600_000;
  for (;;) {
    const c = await cards();
    for (const [i, ref] of refs.entries()) {
      const id = c[name(letters[i])]?.id;
      if (found[ref] || !id) continue;
      if ((await rpc('Moments/Search', ref)).results.some((x) => x.moment.id === id)) found[ref] = Date.now();
    }
    const ids = new Map(Object.values(c).map((x) => [x.id, x.at]));
    if (!capturedAt && ids.size === 100) capturedAt = Math.max(...ids.values());
    for (const m of await appMoments()) if (ids.has(m.id) && m.words_lang && !worded[m.id]) worded[m.id] = Date.now() - ids.get(m.id);
    if (!allAt && Object.keys(worded).length === 100) allAt = Date.now();
    // Every photo in and the reader still at work: Dad types again, the
    // number of the last letter (read first).
    if (!middle && capturedAt && !allAt) middle = await type(refs[2]);
    if (allAt && (Object.keys(found).length === refs.length || Date.now() > allAt + 10_000)) break;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const m = await page.evaluate(() => {
    const x = window.__import;
    x.on = false;
    return { gap: x.gap, longtasks: x.longtasks };
  });
  const c = await cards();
  await page.getByTestId('search-box').fill('');

  console.log(`# captured: ${captured} of 100 cards had their moment when the first query was answered (${s(typedAt - start)} s); all 100 ${capturedAt ? `in ${s(capturedAt - start)} s` : 'not'}`);
  for (const [label, r] of [['while capturing', early], ['while reading', middle]]) {
    if (!r) continue;
    const shown = r.keys.map((k) => k.shown);
    console.log(`# typing ${label} “${r.value}”: key to box median ${median(shown).toFixed(0)} ms, max ${Math.max(...shown).toFixed(0)} ms (waiting for the main thread at most ${Math.max(...r.keys.map((k) => k.wait)).toFixed(0)} ms); search answered in ${r.ms.toFixed(0)} ms: ${r.status} (${r.results} shown)`);
  }
  const lt = m.longtasks;
  console.log(`# main thread during the import: longest frame gap ${m.gap.toFixed(0)} ms; ${lt.length} long tasks, longest ${lt.length ? Math.max(...lt).toFixed(0) : 0} ms, ${s(lt.reduce((a, b) => a + b, 0))} s in all`);
  for (const [i, ref] of refs.entries()) {
    const card = c[name(letters[i])];
    const took = found[ref] && card ? s(found[ref] - card.at) : 'not found';
    console.log(`# letter ${i + 1} (photo ${at[i] + 1} of 100, HG/${ref}/B): card at ${card ? s(card.at - start) : '-'} s, found by search ${took} s after its card (goal: 60 s while 100 are imported, 5 s when idle)`);
  }
  const lat = Object.values(worded);
  console.log(`# all 100 with their words ${allAt ? `${s(allAt - start)} s` : `not yet (${lat.length} of 100)`} after "Choose photos…"; from each card to its words: median ${s(median(lat))} s, longest ${s(Math.max(...lat))} s; ${lat.filter((x) => x <= 60_000).length} of 100 within 60 s (goal: each within 60 s of its capture)`);
  console.log(`# load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  for (const [i, ref] of refs.entries()) assert.ok(found[ref], `letter ${i + 1} (HG/${ref}/B) found by its number within 600 s`);
  for (const r of [early, middle].filter(Boolean)) {
    assert.equal(r.value, r.keys.at(-1)?.value, 'the last key showed what was typed');
  }
  assert.equal(early.value, 'red door', 'the box holds exactly what was typed');
  assert.match(early.status, /“red door”/, 'search answered while the photos came in');
  if (middle) assert.equal(middle.value, refs[2]);
});
