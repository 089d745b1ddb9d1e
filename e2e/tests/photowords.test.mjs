// Issue 37: the words in a photo, found on this computer. A photo of a
// letter added through "Choose photos…" is read by the window's reader of
// words (tesseract.js, shipped inside Spark: nothing is fetched), once it
// is sent; its moment shows "Words in the photo", a word of it can be kept
// as a phrase, and search finds the photo by a number only the photo holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, choose, cardOf, familyMoments, harness, tab, until, useLocalEngine, looks, rpc, letter, texture } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w), { readWords: true });

test('the words of a photo are read here, shown, kept and found', async () => {
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log(`# page: ${m.text()}`); });
  page.on('pageerror', (e) => console.log(`# page error: ${e.message}`));
  // The photos earlier test files added were kept with the reader off:
  // the window reads them now, and a photo Dad adds goes before them.
  const unread = async () => (await rpc('Moments/Page', '', 200)).moments.filter((x) => x.kind === 'photo' && x.thumb && !x.words_lang).length;
  const path = await letter(page);
  await choose(page, [path]);
  const { id } = await cardOf(page, path);
  const started = Date.now();
  const before = await unread();
  const m = await until(async () => {
    const got = await rpc('Moments/Get', id);
    return got.words_lang ? got : null;
  }, 'the photo’s words read and kept', 120_000);
  const left = await unread();
  console.log(`# words read and kept ${((Date.now() - started) / 1000).toFixed(1)} s after the photo's card showed; older photos not read yet: ${before - 1} then ${left}`);
  if (before > 6) assert.ok(left >= before - 4, `the new photo was read before the older ones (${before - 1} waited, ${left} still unread)`);
  assert.match(m.words, /RD\/7731\/Q/);
  assert.match(m.words, /Severn Water/);

  await tab(page, 'Moments');
  await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).click();
  const dialog = page.getByTestId('moment-dialog');
  const words = dialog.getByTestId('photo-words');
  await words.waitFor();
  assert.match(await words.innerText(), /^Words in the photo\n/);
  const found = await looks(page, 'photo-words');
  assert.deepEqual(found, [], JSON.stringify(found, null, 1));
  await dialog.getByRole('button', { name: 'Close' }).click();

  // Search finds it by a number only the photo holds, highlighted.
  await page.getByRole('searchbox').fill('7731');
  // This photo's result: another search's results may still show.
  const hit = page.locator(`[data-testid=search-result][data-moment="${id}"]`).filter({ hasText: 'Words in the photo' });
  await hit.first().waitFor({ timeout: 20_000 });
  assert.ok((await hit.first().locator('mark').allInnerTexts()).some((t) => /7731/.test(t)), 'the number is marked in the match');
});

test('a textured photo with no text in it shows no words: what the reader was unsure of is not shown', async () => {
  const path = await texture(page);
  await choose(page, [path]);
  const { id } = await cardOf(page, path);
  // Read all the same, and kept with no words, so that it is not read again.
  const m = await until(async () => {
    const got = await rpc('Moments/Get', id);
    return got.words_lang ? got : null;
  }, 'the textured photo read and its (no) words kept', 120_000);
  console.log(`# textured photo: words kept ${JSON.stringify(m.words)} (${m.words_lang})`);
  assert.equal(m.words, '', 'no words kept of a photo with no text');
  assert.equal(m.words_lang, 'eng');

  await tab(page, 'Moments');
  await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).click();
  // Rendered with this moment (its photo and its words come together).
  const dialog = page.locator(`[data-testid=moment-dialog][data-moment-id="${id}"]`);
  await dialog.getByTestId('moment-image').waitFor();
  assert.equal(await dialog.getByTestId('photo-words').count(), 0, 'no "Words in the photo" for a photo with no text');
  await dialog.getByRole('button', { name: 'Close' }).click();
});

test('with Words in photos off in Settings, a photo is not read; chosen again, it is', async () => {
  await tab(page, 'Settings');
  const words = page.locator('fieldset').filter({ has: page.locator('legend', { hasText: 'Words in photos' }) });
  await words.getByLabel('Off: don’t look for words in photos').check();
  await until(async () => (await rpc('Settings/Get')).words_lang === 'off', 'off saved');
  // Another letter: the same pixels would be the same photo, read above.
  const path = await letter(page, ['Severn Water', 'Your reference RD/8842/K', 'Amount due 12.75']);
  await choose(page, [path]);
  const { id } = await cardOf(page, path);
  await until(async () => !(await rpc('Moments/Get', id)).pending, 'the photo sent');
  // A read starts 1.5 s after a photo is sent and took 3.3 s above: 8 s
  // is well past it.
  await new Promise((r) => setTimeout(r, 8000));
  assert.equal((await rpc('Moments/Get', id)).words_lang, '', 'not read while off');

  await tab(page, 'Settings');
  await words.getByLabel('Look for words in English').check();
  const m = await until(async () => {
    const got = await rpc('Moments/Get', id);
    return got.words_lang ? got : null;
  }, 'the photo read once English is chosen again', 120_000);
  assert.match(m.words, /RD\/8842\/K/);
});

test('a photo captured while the family engine can\'t be reached shows its words, and is found by them, before it is sent', async () => {
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', {});
  await rpc('Settings/UseRemote', remote.url, remote.token);
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
  try {
    await harness('/test/remote/stop');
    await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
    const path = await letter(page, ['Severn Water', 'Your reference RD/5520/T', 'Amount due 8.40']);
    await choose(page, [path]);
    const { id } = await cardOf(page, path);
    const started = Date.now();
    // Read from its small copy on this computer, the photo still waiting.
    const m = await until(async () => {
      const got = await rpc('Moments/Get', id);
      return got.words_lang ? got : null;
    }, 'the waiting photo’s words read', 120_000);
    console.log(`# offline: words shown ${((Date.now() - started) / 1000).toFixed(1)} s after the card, the photo waiting (${m.pending})`);
    assert.equal(m.pending, true, 'the photo still waits in the outbox');
    assert.match(m.words, /RD\/5520\/T/);
    await tab(page, 'Moments');
    await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).click();
    const dialog = page.locator(`[data-testid=moment-dialog][data-moment-id="${id}"]`);
    await dialog.getByTestId('photo-words').filter({ hasText: 'RD/5520/T' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    // Found by a number in it, the photo still waiting, with no Pippa.
    await page.getByRole('searchbox').fill('5520');
    const hit = page.locator(`[data-testid=search-result][data-moment="${id}"]`).filter({ hasText: 'Words in the photo' });
    await hit.first().waitFor();
    assert.ok((await hit.first().locator('mark').allInnerTexts()).some((t) => /5520/.test(t)), 'the number is marked in the match');
    assert.deepEqual(await looks(page, 'search-words-offline'), []);
    await page.getByRole('searchbox').fill('');

    // The engine back: the photo goes, then its words, kept once.
    await harness('/test/remote/start', {});
    const kept = await until(async () => (await familyMoments(remote)).find((x) => x.id === id && x.words), 'the photo and its words on the family engine', 60_000);
    assert.match(kept.words.text, /RD\/5520\/T/);
    await until(async () => (await rpc('Outbox/Entries')).length === 0 && (await rpc('Outbox/Writes')).length === 0, 'nothing left in the outbox');
  } finally {
    await harness('/test/remote/stop').catch(() => {});
    await useLocalEngine();
  }
});
