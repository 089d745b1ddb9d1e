// Issue 12, order and labels: the timeline grouped by the date taken
// (Today, This week, month headings) with a toggle to order by date added;
// a photo with no date taken placed by when it was added, saying so; quick
// recalls and notes named as such; a phrase links back to its moment and
// its Remove can be undone; the arrow keys move through the tiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, harness, holdRpc, rpc, tab, shot, until } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

/** reveal scrolls the timeline until a moment's tile is drawn. */
async function reveal(id) {
  await until(
    () =>
      page.evaluate((id) => {
        if (document.querySelector(`[data-testid=moment-tile][data-moment="${id}"]`)) return true;
        const sc = document.querySelector('[data-testid=moments-scroller]');
        sc.scrollTop = sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1 ? 0 : sc.scrollTop + sc.clientHeight;
        return false;
      }, id),
    `the tile of ${id}`,
  );
}

/** headingOf is the heading a moment's tile sits under. */
async function headingOf(id) {
  await reveal(id);
  return page.locator(`[data-moment="${id}"]`).evaluate((el) => el.closest('.tile').dataset.heading);
}

const daysAgo = (n) => new Date(Date.now() - n * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

test('the timeline: by date taken under Today, This week and months; by date added with the toggle; no date taken says added', async () => {
  const made = {};
  for (const [name, body] of Object.entries({
    y2015: { kind: 'photo', caption: 'Letter from the bank, 2015', takenAt: '2015-06-10T10:00:00Z' },
    y2021: { kind: 'photo', caption: 'Seed packet', takenAt: '2021-03-02T09:30:00Z' },
    week: { kind: 'photo', caption: 'Pharmacy label', takenAt: daysAgo(3) },
    undated: { kind: 'photo', caption: 'A photo with no date', takenAt: '' },
    bare: { kind: 'photo', caption: '', takenAt: '' },
    note: { kind: 'note', caption: 'Call Anna about Sunday' },
  })) {
    made[name] = (await harness('/test/moment', body)).id;
  }
  await page.reload();
  await tab(page, 'Moments');
  assert.equal(await page.getByTestId('order-taken').isChecked(), true, 'by date taken at first');
  // Headings, in order, top to bottom.
  const ys = {};
  for (const k of ['undated', 'week', 'y2021', 'y2015']) {
    await reveal(made[k]);
    ys[k] = await page.locator(`[data-moment="${made[k]}"]`).evaluate((el) => {
      const t = el.closest('.tile');
      return { y: Number(t.dataset.y), i: Number(t.dataset.index), heading: t.dataset.heading };
    });
  }
  ys.order = await page.getByTestId('order-taken').isChecked();
  ys.count = await page.getByTestId('moments-count').innerText();
  assert.ok(ys.undated.i < ys.week.i && ys.week.i < ys.y2021.i && ys.y2021.i < ys.y2015.i && ys.week.y >= ys.undated.y, `newest taken first: ${JSON.stringify(ys)}`);
  assert.equal(await headingOf(made.y2015), 'June 2015');
  assert.equal(await headingOf(made.y2021), 'March 2021');
  assert.equal(await headingOf(made.week), 'This week');
  assert.equal(await headingOf(made.undated), 'Today', 'a photo with no date taken goes by when it was added');
  const text = async (id) => {
    await reveal(id);
    return page.locator(`[data-moment="${id}"]`).innerText();
  };
  assert.match(await text(made.undated), /Added today/, 'and says so');
  assert.doesNotMatch(await text(made.y2015), /added/);
  // A photo with neither caption nor date taken says when it was added,
  // whole: no line of its tile is cut short.
  assert.match(await text(made.bare), /Added today, \d/);
  const cut = await page.locator(`[data-moment="${made.bare}"]`).evaluate((el) =>
    [...el.querySelectorAll('.tile-title, .tile-when')].filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth).map((e) => e.textContent),
  );
  assert.deepEqual(cut, [], 'lines cut short on the tile of a photo with no caption');
  const note = await text(made.note);
  assert.match(note, /Note/);
  assert.doesNotMatch(note, /Photo/);
  await page.evaluate(() => (document.querySelector('[data-testid=moments-scroller]').scrollTop = 0));
  await shot(page, 'timeline');

  // The dialog of the undated photo says where its date comes from.
  await page.evaluate(() => (document.querySelector('[data-testid=moments-scroller]').scrollTop = 0));
  await reveal(made.undated);
  await page.locator(`[data-moment="${made.undated}"]`).click();
  await page.getByTestId('moment-dialog').getByText('the photo doesn’t say when it was taken').waitFor();
  await page.getByTestId('moment-dialog').getByRole('button', { name: 'Close', exact: true }).click();

  // By date added: everything made today is under Today, newest added first.
  await page.getByLabel('Date added').check();
  await until(async () => (await headingOf(made.y2015)) === 'Today', 'the 2015 letter under Today when ordered by date added');
  const order = [];
  for (const k of ['y2015', 'y2021', 'week', 'undated', 'bare', 'note']) {
    await reveal(made[k]);
    order.push(Number(await page.locator(`[data-moment="${made[k]}"]`).evaluate((el) => el.closest('.tile').dataset.index)));
  }
  assert.deepEqual([...order].sort((a, b) => b - a), order, `newest added first (${order})`);
  await shot(page, 'timeline-by-added');
  await page.getByLabel('Date taken').check();
  await until(async () => (await headingOf(made.y2015)) === 'June 2015', 'back to the date taken');
});

test('the arrow keys move through the tiles; Alt+2 opens Moments', async () => {
  // Two rows at least, whatever ran before: the months share rows, so the
  // moments of the test before fit in one row when this file runs alone.
  for (let i = 0; i < 8; i++) await harness('/test/moment', { kind: 'photo', caption: `Row filler ${i}`, takenAt: daysAgo(0) });
  await page.reload();
  await tab(page, 'Add photos');
  await page.locator('body').press('Alt+2');
  await page.locator('main .screen.moments').waitFor();
  await until(async () => page.evaluate(() => document.activeElement?.dataset?.testid === 'moment-tile'), 'a tile has the keyboard');
  await page.evaluate(() => (document.querySelector('[data-testid=moments-scroller]').scrollTop = 0));
  const first = page.locator('.tile[data-index="0"] [data-testid=moment-tile]');
  await first.focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.tile')?.dataset.index), '1');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.tile')?.dataset.index), '0');
  await page.keyboard.press('ArrowDown');
  const [down, y0, y1] = await page.evaluate(() => [
    Number(document.activeElement.closest('.tile')?.dataset.index),
    Number(document.querySelector('.tile[data-index="0"]').dataset.y),
    Number(document.activeElement.closest('.tile')?.dataset.y),
  ]);
  assert.ok(down > 0 && y1 > y0, `ArrowDown moves to the row below (tile ${down}, y ${y0} -> ${y1})`);
  await page.keyboard.press('End');
  const total = await page.evaluate(() => Number(document.querySelector('[data-testid=moments-count]').textContent.match(/\d+/)[0]));
  assert.equal(await page.evaluate(() => document.activeElement.closest('.tile')?.dataset.index), String(total - 1), 'End goes to the last');
  await page.keyboard.press('Home');
  assert.equal(await page.evaluate(() => document.activeElement.closest('.tile')?.dataset.index), '0');
  // Tab leaves the grid and comes back to the tile last visited.
  const tabbable = await page.locator('[data-testid=moment-tile][tabindex="0"]').count();
  assert.equal(tabbable, 1, 'one tile in the Tab order');
  await page.keyboard.press('Enter');
  await page.getByTestId('moment-dialog').waitFor();
  await page.keyboard.press('Escape');
});

test('a quick recall is named so; a phrase links back to its moment; Remove can be undone', async () => {
  const { id } = await harness('/test/moment', { kind: 'photo', caption: 'The blue cup', takenAt: daysAgo(1), read: true });
  await rpc('Phrases/Keep', 'blue cup on the step', id);
  const recall = await rpc('Phrases/Recall', `e2e-recall-${Date.now()}`);
  await page.reload();
  await tab(page, 'Moments');
  await reveal(recall.moment_id);
  const rt = page.locator(`[data-moment="${recall.moment_id}"]`);
  assert.equal(await rt.getAttribute('data-kind'), 'recall');
  assert.match(await rt.innerText(), /Quick recall/);
  assert.doesNotMatch(await rt.innerText(), /Photo/);

  await tab(page, 'Phrases');
  const phrase = page.getByTestId('phrase').filter({ hasText: 'blue cup on the step' });
  await phrase.waitFor();
  await until(async () => (await phrase.locator('img').evaluate((el) => el.complete && el.naturalWidth > 0)), 'the moment’s small copy on the phrase');
  assert.match(await phrase.innerText(), /The blue cup/, 'the phrase names its moment');
  // Columns: every phrase's text starts at the same x.
  const xs = await page.locator('.phrase-text').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
  assert.equal(new Set(xs).size, 1, `phrases in one column (${xs})`);
  await shot(page, 'phrases-linked');
  await phrase.getByTestId('phrase-moment').click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.waitFor();
  assert.match(await dialog.locator('#moment-title').innerText(), /The blue cup/);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  await phrase.getByRole('button', { name: /Remove/ }).click();
  const toastEl = page.locator('#toasts .toast').filter({ hasText: 'Removed “blue cup on the step”' });
  await toastEl.waitFor();
  await until(async () => (await page.getByTestId('phrase').filter({ hasText: 'blue cup on the step' }).count()) === 0, 'the phrase goes');
  await toastEl.getByRole('button', { name: 'Undo' }).click();
  await page.getByTestId('phrase').filter({ hasText: 'blue cup on the step' }).waitFor();
  assert.match(await page.getByTestId('phrase').filter({ hasText: 'blue cup on the step' }).innerText(), /The blue cup/, 'back with its moment');
});

test('the first frame of Moments has nothing empty above the tiles: the move block shows only once it has something to say', async () => {
  await harness('/test/moment', { kind: 'note', caption: 'A moment so that the window opens on Moments' });
  // The window's question of the move is answered late, as on a slow
  // start: meanwhile the tiles are drawn, with no empty box above them
  // that would vanish and move every tile up under Dad's eyes.
  const { askedFor, release } = await holdRpc(page, 'Settings/MoveCheck');
  try {
    await page.reload();
    await page.getByTestId('moment-tile').first().waitFor();
    await askedFor;
    const top = await page.getByTestId('moment-tile').first().evaluate((el) => el.getBoundingClientRect().top);
    assert.equal(await page.getByTestId('moments-move').isVisible(), false, 'no empty move block while its question is out');
    await release();
    // On this computer's own engine there is nothing to bring along: the
    // block stays hidden and the tiles stay where they were drawn.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.getByTestId('moments-move').isVisible(), false, 'nothing to offer on this computer’s own engine');
    assert.equal(await page.getByTestId('moment-tile').first().evaluate((el) => el.getBoundingClientRect().top), top, 'the tiles did not move');
  } finally {
    await release();
  }
});
