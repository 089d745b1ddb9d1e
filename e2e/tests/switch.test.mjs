// Issue 21, item 2 (issue 20, item 2): after a switch of engine in
// Settings, Moments shows the chosen engine's moments, never the ones of
// the engine before. Seen before: Moments kept this computer's moments
// under "Kept on the family engine". The switch sends one "engine" event
// (app/state.go) and every screen reads itself again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBesideFamily, appMoments, familyMoments, harness, rpc, choose, tab, shot, until, useLocalEngine } from './lib.mjs';

let context;
let page;
let remote; // { url, token } of the family engine

before(async () => {
  ({ context, page, remote } = await openBesideFamily());
});

after(async () => {
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** shownIDs scrolls through Moments and gathers the ids of every tile
 * drawn (the grid draws only the tiles in view). */
async function shownIDs() {
  const ids = await page.evaluate(async () => {
    const sc = document.querySelector('[data-testid=moments-scroller]');
    const seen = new Set();
    for (let y = 0; ; y += sc.clientHeight / 2) {
      sc.scrollTop = y;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (const t of document.querySelectorAll('[data-testid=moment-tile]')) seen.add(t.dataset.moment);
      if (y >= sc.scrollHeight) break;
    }
    sc.scrollTop = 0;
    return [...seen];
  });
  return new Set(ids);
}

/** counted is what Moments' count says for n moments, all read. */
const counted = (n) => (n === 0 ? '' : n === 1 ? '1 moment' : `${n} moments`);

/** shows waits until Moments' count says n and no tile shows any of gone. */
async function shows(n, gone, what) {
  const count = page.getByTestId('moments-count');
  await until(async () => {
    if ((await count.innerText()).trim() !== counted(n)) return false;
    for (const id of gone) if ((await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).count()) > 0) return false;
    return true;
  }, what, 15_000).catch(async (e) => {
    await shot(page, 'switch-stale');
    const tiles = await shownIDs();
    const engine = await appMoments();
    const missing = engine.filter((m) => !tiles.has(m.id)).map((m) => `${m.id} (${m.kind}, taken ${m.takenAt}, added ${m.createdAt}${m.pending ? ', pending' : ''})`);
    const extra = [...tiles].filter((id) => !engine.some((m) => m.id === id));
    throw new Error(
      `${e.message}; the count says "${await count.innerText()}", waited for "${counted(n)}"; ` +
        `not shown: ${missing.join(', ') || 'none'}; shown but not on the engine: ${extra.join(', ') || 'none'}`,
    );
  });
}

test('after a switch of engine, Moments shows the chosen engine’s moments at once', async () => {
  // Two photos on this computer's engine, shown in Moments. Waited for by
  // their ids: the moments of the tests before are there already, and the
  // two come only once their capture is done (seen on a loaded machine: the
  // count of moments said enough before the two were in the outbox).
  const earlier = new Set((await appMoments()).map((m) => m.id));
  const { paths } = await harness('/test/generate', { n: 2 });
  await choose(page, paths);
  const mine = await until(async () => {
    const ms = await appMoments();
    if (ms.some((m) => m.pending) || (await rpc('Outbox/Entries')).length > 0) return false;
    return ms.filter((m) => !earlier.has(m.id)).length === 2 && ms;
  }, 'the two reach this computer’s engine');
  const family = new Set((await familyMoments(remote)).map((m) => m.id));
  const onlyMine = mine.map((m) => m.id).filter((id) => !family.has(id));
  assert.ok(onlyMine.length >= 2, 'the family engine lacks this computer’s two new moments');
  await tab(page, 'Moments');
  await shows(mine.length, [], 'Moments to show this computer’s moments');

  // Switch to the family engine in Settings, as Dad does, and go back to
  // Moments: only the family engine's moments.
  await tab(page, 'Settings');
  await page.getByLabel('Family engine').check();
  await page.getByLabel('Connection text').fill(`${remote.url}#${remote.token}`);
  await page.getByTestId('connect').click();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
  await tab(page, 'Moments');
  await shows(family.size, onlyMine, 'Moments to show only the family engine’s moments');
  await shot(page, 'switch-family-moments');

  // And back: this computer's moments again.
  await tab(page, 'Settings');
  await page.getByLabel('This computer').check();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'this computer' }).waitFor();
  await tab(page, 'Moments');
  const back = await appMoments();
  await shows(back.length, [...family].filter((id) => !back.some((m) => m.id === id)), 'Moments to show this computer’s moments again');
});
