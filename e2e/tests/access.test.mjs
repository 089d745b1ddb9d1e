// Issue 12, the small things and accessibility: a caption saves as it is
// typed and survives Escape; axe-core (WCAG 2.0-2.2 A and AA rules,
// contrast included) finds nothing on any screen, light or dark; at 200%
// zoom the reading is in view when a moment opens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, harness, useLocalEngine, rpc, choose, tab, shot, until, url, axe, cardOf } from './lib.mjs';

let context;
let page;
let photo = ''; // a moment with a finished reading

before(async () => {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  await useLocalEngine();
  ({ context, page } = await launch());
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  const { paths } = await harness('/test/generate', { n: 2 });
  await choose(page, paths);
  // The last chosen, the newest card.
  const { card, id } = await cardOf(page, paths.at(-1));
  await card.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
  photo = id;
  await rpc('Phrases/Keep', 'bright afternoon', photo);
});

after(async () => {
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** photoTile scrolls Moments to the photo's tile: in a small window, with
 * the moments later tests add above it, it may not be drawn yet. */
async function photoTile(p) {
  const tile = p.locator(`[data-testid=moment-tile][data-moment="${photo}"]`);
  await p.getByTestId('moment-tile').first().waitFor();
  for (let i = 0; i < 60 && (await tile.count()) === 0; i++) {
    await p.getByTestId('moments-scroller').evaluate((el) => {
      el.scrollTop += el.clientHeight / 2;
      el.dispatchEvent(new Event('scroll'));
    });
    await p.waitForTimeout(50);
  }
  return tile;
}

async function openPhoto(p = page) {
  await tab(p, 'Moments');
  const tile = await photoTile(p);
  await tile.click();
  const dialog = p.getByTestId('moment-dialog');
  await dialog.waitFor();
  // The very moment clicked, not one drawn in its tile a moment before.
  assert.equal(await dialog.getAttribute('data-moment-id'), photo, 'the dialog shows the moment clicked');
  return dialog;
}

test('a caption saves as it is typed and is not lost on Escape', async () => {
  let dialog = await openPhoto();
  const field = dialog.getByTestId('caption');
  await field.click();
  await field.pressSequentially('Grandma’s garden gate', { delay: 15 });
  // Escape at once, before the pause that saves.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await until(async () => (await rpc('Moments/Get', photo)).caption === 'Grandma’s garden gate', 'the caption saved after Escape');
  await page.locator(`[data-testid=moment-tile][data-moment="${photo}"]`).filter({ hasText: 'Grandma’s garden gate' }).waitFor();
  dialog = await openPhoto();
  // Typing and pausing saves too, and says so.
  await dialog.getByTestId('caption').fill('Grandma’s garden gate, spring');
  await dialog.getByTestId('caption-state').filter({ hasText: 'Saved' }).waitFor();
  // "Saved" may still be the Escape's save answering late: wait for the
  // engine to hold the new words.
  await until(async () => (await rpc('Moments/Get', photo)).caption === 'Grandma’s garden gate, spring', 'the typed caption saved');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
});

// Once a known bug (about one run in three): the blur and the closing
// both saved the caption, side by side, so a late answer to an older save
// (the empty field's, say) could come back after the newer one, into the
// moment opened again. Saves of one moment now run one at a time, newest
// words last, and a late answer speaks only in the opening that made it.
test('a caption saved on Escape shows in the field when the moment opens again', async () => {
  let dialog = await openPhoto();
  const field = dialog.getByTestId('caption');
  await field.click();
  await field.fill('');
  await field.pressSequentially('Garden gate, again', { delay: 15 });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await until(async () => (await rpc('Moments/Get', photo)).caption === 'Garden gate, again', 'the caption saved after Escape');
  await page.locator(`[data-testid=moment-tile][data-moment="${photo}"]`).filter({ hasText: 'Garden gate, again' }).waitFor();
  dialog = await openPhoto();
  try {
    await until(
      () =>
        page.evaluate(() => {
          const d = {
            value: document.querySelector('#caption').value,
            open: document.querySelector('[data-testid=moment-dialog]').dataset.momentId,
            active: document.activeElement?.id || document.activeElement?.tagName,
            drafts: localStorage.getItem('spark.captions'),
            title: document.querySelector('#moment-title').textContent,
          };
          return d.value === 'Garden gate, again' ? true : { ...d, ok: false };
        }).then((d) => (d === true ? true : (console.log(`# caption field: ${JSON.stringify(d)}`), false))),
      'the caption in the field when the moment opens again',
      15_000,
    );
    // And it stays: no late answer of a save before takes it back.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await dialog.getByTestId('caption').inputValue(), 'Garden gate, again');
    assert.equal((await rpc('Moments/Get', photo)).caption, 'Garden gate, again', 'the engine keeps the newest words');
  } finally {
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  }
});

// Every screen in light and dark, at 100% and at 200% zoom (half the CSS
// pixels of a 1180×800 window, where the tabs fold behind the menu).
for (const [scheme, zoom] of [['light', 1], ['dark', 1], ['light', 2], ['dark', 2]]) {
  const at = zoom === 2 ? `${scheme}, 200%` : scheme;
  test(`axe-core finds no WCAG 2.2 A/AA violation on any screen (${at})`, async () => {
    const { context: c, page: p } = await launch({ colorScheme: scheme, ...(zoom === 2 ? { width: 590, height: 400 } : {}) });
    const all = [];
    try {
      await p.locator('[data-testid=engine-state][data-state=connected]').waitFor();
      const go = (name) => tab(p, name);
      // Add photos with cards: one read, one failed to be added.
      await go('Add photos');
      await harness('/test/dialog', { files: [(await harness('/test/generate', { n: 1 })).paths[0], '/nonexistent/letter.jpg'] });
      await p.getByRole('button', { name: 'Choose photos…' }).click();
      await p.locator('[data-testid=card][data-state=sent]').first().waitFor({ timeout: 60_000 });
      await p.locator('[data-testid=card] [data-testid=card-reading]').filter({ hasText: 'red door' }).first().waitFor({ timeout: 60_000 });
      all.push(...(await axe(p, 'Add photos')));
      await go('Moments');
      await (await photoTile(p)).waitFor();
      all.push(...(await axe(p, 'Moments')));
      const dialog = await openPhoto(p);
      all.push(...(await axe(p, 'moment dialog')));
      await dialog.getByTestId('open-viewer').click();
      await p.getByTestId('viewer-img').and(p.locator('[data-source=original]')).waitFor();
      all.push(...(await axe(p, 'photo viewer')));
      await p.keyboard.press('Escape');
      await dialog.getByRole('button', { name: 'Delete…' }).click();
      await p.locator('dialog.confirm').waitFor();
      all.push(...(await axe(p, 'confirm dialog')));
      await p.locator('dialog.confirm').getByRole('button', { name: 'Cancel' }).click();
      await dialog.getByRole('button', { name: 'Close', exact: true }).click();
      await go('Phrases');
      await p.getByTestId('phrase').first().waitFor();
      all.push(...(await axe(p, 'Phrases')));
      await go('Settings');
      await p.getByLabel('Family engine').check();
      all.push(...(await axe(p, 'Settings')));
      await p.getByTestId('search-box').fill('red door');
      await p.getByTestId('search-box').press('Enter');
      await p.getByTestId('search-result').first().waitFor();
      all.push(...(await axe(p, 'search results')));
      await p.getByTestId('search-box').press('Escape');
      // Offline: the banner, a waiting photo in the Outbox, an error toast.
      await rpc('Settings/Connect', 'http://127.0.0.1:9#spk_nobody', true);
      await p.locator('[data-testid=engine-state][data-state=offline]').waitFor();
      await harness('/test/dialog', { files: (await harness('/test/generate', { n: 1 })).paths });
      await go('Add photos');
      await p.getByRole('button', { name: 'Choose photos…' }).click();
      await go('Outbox');
      await p.locator('[data-testid=entry]').first().waitFor();
      all.push(...(await axe(p, 'Outbox, offline')));
      // The menu's count says what it counts, to the eye and to a screen
      // reader: never a bare number beside "Menu".
      const menu = p.getByTestId('menu');
      if (zoom === 2) {
        assert.ok(await menu.isVisible(), 'at 200% the tabs fold behind the menu');
        const badge = menu.locator('.badge');
        await badge.waitFor();
        const seen = (await badge.innerText()).trim();
        assert.doesNotMatch(seen, /^\d+$/, `the menu's count is a bare number: "${seen}"`);
        assert.match(seen, /\d+ (to send|need)/, `the menu's count in words: "${seen}"`);
        const name = await menu.evaluate((b) => b.textContent.replace('☰', '').replace(/\s+/g, ' ').trim());
        assert.match(name, /^Menu\W+\d+ (to send|need)/, `what a screen reader hears of the menu: "${name}"`);
        assert.equal(await p.getByRole('button', { name: /^Menu \d+ (to send|need)/ }).count(), 1, 'the menu is named with its count in words');
        const box = await p.locator('header').boundingBox();
        assert.ok(box && box.height < 120, `the header stays one row with the count in words: ${box?.height}px`);
      }
      // Moments of a family engine never reached: only what waits here.
      await go('Moments');
      all.push(...(await axe(p, 'Moments, offline')));
      await go('Phrases');
      await p.getByTestId('start-recall').click();
      // Offline, a recall waits on this computer (or, from an engine that
      // refuses, says what went wrong).
      await p.locator('#toasts .toast, [data-testid=recall] .error-text, [data-testid=recall-waiting]').first().waitFor();
      all.push(...(await axe(p, 'an error shown')));
      await shot(p, `axe-offline-${scheme}${zoom === 2 ? '-200' : ''}`);
    } finally {
      await useLocalEngine();
      await c.close();
    }
    for (const v of all) console.log(`# ${at} · ${v.where} · ${v.id}: ${v.help}\n#   ${v.nodes.join('\n#   ')}`);
    assert.deepEqual(all.map((v) => `${v.where}: ${v.id}`), [], 'no violations');
  });
}

test('at 200% zoom the reading is in view when a moment opens', async () => {
  // 200% zoom of a 1180×800 window: half the CSS pixels, each drawn twice.
  const { context: c, page: p } = await launch({ width: 590, height: 400 });
  try {
    await p.locator('[data-testid=engine-state][data-state=connected]').waitFor();
    const dialog = await openPhoto(p);
    const text = dialog.locator('[data-testid=reading-text]').first();
    await text.waitFor();
    const box = await text.boundingBox();
    assert.ok(box.y >= 0 && box.y + 40 <= 400, `the reading starts in view (at y ${box.y} of 400)`);
    await shot(p, 'zoom200-moment');
    await dialog.getByTestId('open-viewer').click();
    await p.getByTestId('viewer').waitFor();
    const bar = await p.getByTestId('viewer-close').boundingBox();
    assert.ok(bar.x + bar.width <= 590 && bar.y >= 0, 'the viewer’s controls fit');
    await shot(p, 'zoom200-viewer');
  } finally {
    await c.close();
  }
});
