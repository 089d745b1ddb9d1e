// Issue 36, items 2 and 3: Pippa's state and where things are, said where
// Dad looks. Before anybody set Pippa up on this computer, a photo added
// says so on its card and in its moment, with "Set her up" taking him to
// Settings' Pippa section, and never that she will look at it "soon"; once
// he sets her up there, the reading comes. On the engine on this
// computer, nothing is "sent": the card and the status bar say "Kept on
// this computer". On a family engine with no Pippa, the window says to
// ask whoever looks after it, and a photo that reached it is "Sent to the
// family engine". Pictures of the card and the moment before and after, in
// light, dark and at 200%, into pippa-*.png; axe-core on each.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, harness, rpc, choose, tab, until, looks, useLocalEngine, holdRpc, cardOf } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

after(async () => {
  await useLocalEngine().catch(() => {});
  await harness('/test/pippa/seat', { seated: true }).catch(() => {});
});

const notSetUp = 'Pippa isn’t set up on this computer yet, so she can’t read this.';
const noFamilyPippa = 'The family engine has no Pippa yet; ask whoever looks after it.';

/** pictures brings what inView shows into view and takes it in light,
 * dark and at 200% with axe-core on each (lib.mjs looks). */
async function pictures(name, inView) {
  await inView();
  return looks(page, name, inView);
}

/** pippaSection waits for Settings to show its Pippa section in view,
 * with the keyboard in it, and returns it. */
async function pippaSection() {
  const s = page.getByTestId('pippa-section');
  await s.waitFor();
  await until(async () => {
    const box = await s.boundingBox();
    const vp = page.viewportSize();
    return box && vp && box.y >= 0 && box.y < vp.height;
  }, 'the Pippa section in view');
  await until(() => s.evaluate((el) => el.contains(document.activeElement)), 'the keyboard in the Pippa section');
  return s;
}

test('no Pippa on this computer: the card and the moment say so, with the way to set her up; set up, the reading comes', async () => {
  const fake = await harness('/test/pippa/seat', { seated: false });
  await page.reload();
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  // Every word the cards say, as they say it: nothing is "sent" from
  // this computer to itself, not even for a moment.
  await page.getByTestId('cards').evaluate((el) => {
    window.cardWords = [];
    new MutationObserver(() => el.querySelectorAll('.state').forEach((s) => window.cardWords.push(s.textContent))).observe(el, { subtree: true, childList: true, characterData: true });
  });
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const { card } = await cardOf(page, paths[0]);
  const reading = card.getByTestId('card-reading');
  await reading.filter({ hasText: notSetUp }).waitFor();
  // The photo is on this computer's engine: kept here, not "sent".
  await until(async () => (await card.getAttribute('data-state')) === 'sent', 'the photo in the engine');
  assert.equal(await card.locator('.state').innerText(), 'Kept on this computer');
  const said = await page.evaluate(() => [...new Set(window.cardWords)]);
  assert.ok(said.includes('Kept on this computer'), `the card's words: ${said.join(' | ')}`);
  assert.deepEqual(said.filter((w) => /sen[dt]/i.test(w)), [], 'no card word says sending or sent');
  // The status bar: where the moments are, and nothing "sent".
  const bar = page.locator('footer.statusbar');
  await until(async () => (await page.locator('[data-testid=waiting][data-count="0"]').count()) === 1, 'nothing waiting');
  await until(async () => (await bar.innerText()).trim() === 'Kept on this computer', `the bar saying only “Kept on this computer” (it says “${await bar.innerText()}”)`);
  // Nothing promises what will not come.
  await new Promise((r) => setTimeout(r, 1000));
  assert.doesNotMatch(await card.innerText(), /soon|Waiting for Pippa|Sent/);
  const found = await pictures('pippa-card-none', () => card.evaluate((el) => el.scrollIntoView({ block: 'end' })));

  // The moment says the same, with the same way to set her up.
  await card.locator('.card-open').click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.getByTestId('readings').filter({ hasText: notSetUp }).waitFor();
  assert.doesNotMatch(await dialog.getByTestId('readings').innerText(), /soon/);
  found.push(...(await pictures('pippa-moment-none', () => dialog.getByTestId('readings').scrollIntoViewIfNeeded())));
  await dialog.getByRole('button', { name: 'Set her up' }).click();
  await until(async () => !(await dialog.isVisible()), 'the moment closed');
  await pippaSection();

  // The tile in Moments says the same.
  const id = await card.getAttribute('data-moment-id');
  await tab(page, 'Moments');
  const tile = page.locator(`[data-testid=moment-tile][data-moment="${id}"]`);
  await tile.getByTestId('tile-reading').filter({ hasText: notSetUp }).waitFor();

  // The card's link goes there too.
  await tab(page, 'Add photos');
  await card.getByRole('button', { name: 'Set her up' }).click();
  const section = await pippaSection();
  assert.match(await section.getByTestId('pippa-now').innerText(), /not set up/);

  // Dad sets her up (another Pippa: the harness's fake one, slow, so
  // that the words before her reading are seen).
  await harness('/test/pippa', { delayMs: 3000 });
  await section.locator('summary').click();
  await section.getByLabel('Address').fill(fake.url);
  await section.getByLabel('Model').fill(fake.model);
  await section.getByRole('button', { name: 'Save Pippa' }).click();
  // The tile stops saying she is not set up before her reading comes.
  await tab(page, 'Moments');
  await tile.getByTestId('tile-reading').filter({ hasText: /Waiting for Pippa|Pippa is reading/ }).waitFor({ timeout: 2500 });
  await harness('/test/pippa', {});
  await tab(page, 'Add photos');
  // The reading asked for before she was set up comes now.
  await reading.filter({ hasText: 'red door' }).waitFor({ timeout: 30_000 });
  assert.equal(await card.getByRole('button', { name: 'Set her up' }).count(), 0, 'no link once she is set up');
  found.push(...(await pictures('pippa-card-after', () => card.evaluate((el) => el.scrollIntoView({ block: 'end' })))));
  await card.locator('.card-open').click();
  await dialog.getByTestId('reading-text').filter({ hasText: 'red door' }).waitFor();
  assert.doesNotMatch(await dialog.getByTestId('readings').innerText(), /isn’t set up/);
  found.push(...(await pictures('pippa-moment-after', () => dialog.getByTestId('readings').scrollIntoViewIfNeeded())));
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  assert.deepEqual(found, [], JSON.stringify(found, null, 2));
});

test('the window opening on Moments with no Pippa: the tiles say so as soon as it has asked the engine', async () => {
  await harness('/test/pippa/seat', { seated: false });
  const { paths } = await harness('/test/generate', { n: 1 });
  const [added] = await rpc('Capture/Files', 'pippa-tiles', paths);
  // The window's first question about the engine is held back until
  // the tile is drawn, as on a slow start.
  const status = await holdRpc(page, 'Settings/Status');
  await page.reload();
  const tile = page.locator(`[data-testid=moment-tile][data-moment="${added.moment_id}"]`);
  await tile.getByTestId('tile-reading').filter({ hasText: 'Waiting for Pippa…' }).waitFor();
  await status.release();
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  await tile.getByTestId('tile-reading').filter({ hasText: notSetUp }).waitFor({ timeout: 6000 });
  assert.ok(await page.getByTestId('cards').isHidden(), 'the window opened on Moments');
  // Set up again (as the harness had her), the tile says she is on it,
  // then shows her reading.
  await harness('/test/pippa/seat', { seated: true });
  await tile.getByTestId('tile-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 30_000 });
});

test('a family engine with no Pippa: ask whoever looks after it; a photo that reached it is sent to the family engine', async () => {
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', { noPippa: true });
  await rpc('Settings/UseRemote', remote.url, remote.token);
  await page.reload();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const { card } = await cardOf(page, paths[0]);
  await card.getByTestId('card-reading').filter({ hasText: noFamilyPippa }).waitFor();
  await until(async () => (await card.getAttribute('data-state')) === 'sent', 'the photo sent');
  assert.equal(await card.locator('.state').innerText(), 'Sent to the family engine');
  await page.locator('[data-testid=waiting][data-count="0"]').filter({ hasText: 'Everything sent' }).waitFor();
  assert.match(await page.locator('footer.statusbar').innerText(), /Kept on the family engine/);
  // Dad cannot set up the family engine's Pippa: no link to Settings.
  assert.equal(await card.getByRole('button', { name: 'Set her up' }).count(), 0);
  assert.doesNotMatch(await card.innerText(), /soon|Waiting for Pippa|Kept on this computer/);
  const found = await pictures('pippa-family-card', () => card.evaluate((el) => el.scrollIntoView({ block: 'end' })));
  await card.locator('.card-open').click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.getByTestId('readings').filter({ hasText: noFamilyPippa }).waitFor();
  assert.doesNotMatch(await dialog.getByTestId('readings').innerText(), /soon|Set her up/);
  found.push(...(await pictures('pippa-family-moment', () => dialog.getByTestId('readings').scrollIntoViewIfNeeded())));
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  assert.deepEqual(found, [], JSON.stringify(found, null, 2));
  await useLocalEngine();
  await harness('/test/remote/stop');
});
