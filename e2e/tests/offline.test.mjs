// While the engine is away, the banner and the status bar name what waits
// on this computer: a change is a change, a note a note, and no photo is
// spoken of when none waits (frontend/src/words.ts outboxLine, from the
// counts of app.Status).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openOnFamily, familyMoments, harness, rpc, choose, tab, shot, until, useLocalEngine } from './lib.mjs';

let context;
let page;

before(async () => {
  let remote;
  ({ context, page, remote } = await openOnFamily());
  // A photo on the family engine, captured here and read by Pippa, as Dad
  // makes one (later tests expect every photo there to have its reading).
  // Waited for as one more moment there: an empty outbox alone can come
  // before the capture is in it.
  const had = (await familyMoments(remote)).length;
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  await until(async () => {
    const moments = await familyMoments(remote);
    return moments.length > had && moments.every((m) => m.kind !== 'photo' || (m.turns ?? []).some((t) => t.status === 'finished'));
  }, 'Pippa reads the photo on the family engine');
  await until(async () => (await rpc('Outbox/Entries')).length === 0, 'the capture is delivered');
  await tab(page, 'Moments');
  await page.locator('[data-testid=moment-tile][data-pending=false]').first().waitFor({ timeout: 60_000 });
});

after(async () => {
  await harness('/test/remote/stop').catch(() => {});
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** shots saves the window as it is, in light and in dark. */
async function shots(name) {
  await shot(page, `${name}-light`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

test('only a change waits while the family engine is away: the banner and the status bar say a change, not a photo', async () => {
  await harness('/test/remote/stop');
  await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
  const banner = page.locator('.banner');
  const waiting = page.getByTestId('waiting');
  await banner.waitFor();
  assert.equal(await waiting.innerText(), 'Everything sent', 'nothing waits yet');

  // Dad gives a moment a caption: one change, no photo.
  await tab(page, 'Moments');
  await page.locator('[data-testid=moment-tile][data-pending=false]').first().click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.waitFor();
  await dialog.getByTestId('caption').fill('Letter from the council');
  await dialog.getByTestId('caption-state').filter({ hasText: 'Saved on this computer' }).waitFor();
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  await page.locator('[data-testid=waiting][data-count="1"]').waitFor();
  assert.equal(await waiting.innerText(), '1 change waiting to be sent');
  const said = await banner.innerText();
  assert.match(said, /1 change is waiting safely on this computer and will be sent on its own when it is back\./, `the banner: ${said}`);
  assert.doesNotMatch(`${said} ${await waiting.innerText()}`, /photo/, 'no photo spoken of: none waits');
  console.log(`# banner: ${said}`);
  await shots('offline-change');

  // A note as well: a note and a change.
  await tab(page, 'Add photos');
  await page.locator('#note').fill('Buy stamps for the council letter');
  await page.getByRole('button', { name: 'Keep this note' }).click();
  await page.locator('[data-testid=waiting][data-count="2"]').waitFor();
  assert.equal(await waiting.innerText(), '1 note and 1 change waiting to be sent');
  assert.match(await banner.innerText(), /1 note and 1 change are waiting safely on this computer and will be sent on their own when it is back\./);
  await tab(page, 'Outbox');
  await page.getByTestId('outbox-summary').filter({ hasText: '1 note and 1 change are on the way, safe on this computer until then.' }).waitFor();
  await shots('offline-outbox');

  // The engine is back: both are sent, and the bar says so.
  await harness('/test/remote/start', {});
  await page.getByRole('button', { name: 'Send now' }).click();
  await until(async () => (await page.getByTestId('write').count()) === 0, 'the note and the change are sent', 60_000);
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  await page.locator('[data-testid=waiting][data-count="0"]').filter({ hasText: 'Everything sent' }).waitFor();
});
