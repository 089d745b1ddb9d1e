// Settings' Off-site copy over the real app layer: a folder chosen with
// the folder dialog, tested, saved; the status line says "last shipped";
// the disk unplugged is said with what to do within a pass; a copy more
// than a day behind is said on the status bar. Screenshots of the
// section set up, healthy and failing, in light, dark and at 200% zoom,
// and axe-core finds nothing wrong in any of them. With the family
// engine, which keeps no copy, the section says so and who looks after
// it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localWindow, harness, rpc, tab, shot, axe, looks, until, openOnFamily, useLocalEngine } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

const disk = mkdtempSync(join(tmpdir(), 'spark-disk-'));
const folder = join(disk, 'Spark copy');
after(async () => {
  await rpc('Settings/TurnOffOffsite').catch(() => {});
  rmSync(disk, { recursive: true, force: true });
});

/** section is Settings' Off-site copy, scrolled into view. */
async function section() {
  await tab(page, 'Settings');
  const s = page.getByTestId('offsite');
  await s.waitFor();
  await s.scrollIntoViewIfNeeded();
  return s;
}

/** shots takes the section in light, dark and at 200% zoom (half the CSS
 * pixels of the 1180×800 window), runs axe-core on each, and puts the
 * window back as it was. */
async function shots(name) {
  const s = page.getByTestId('offsite');
  await s.scrollIntoViewIfNeeded();
  const found = await looks(page, `offsite-${name}`, () => s.scrollIntoViewIfNeeded());
  assert.deepEqual(found, [], JSON.stringify(found, null, 2));
}

test('a folder chosen, tested and saved gets the copy; the status line says when it last shipped', async () => {
  await harness('/test/generate', { n: 1 }).then(({ paths }) => rpc('Capture/Files', 'offsite', paths));
  const s = await section();
  const status = s.getByTestId('offsite-status');
  await until(async () => (await status.innerText()) === 'There is no off-site copy yet. Choose where to keep one below.', 'the section saying there is no copy yet');
  assert.equal(await s.getByLabel('An external disk or folder').isChecked(), true, 'a disk is the first choice');
  await shots('setup');
  // A storage provider's fields, each with its label.
  await s.getByLabel('A storage provider').check();
  for (const label of ['Address', 'Bucket', 'Key id', 'Secret']) assert.equal(await s.getByLabel(label, { exact: true }).isVisible(), true, label);
  await shots('setup-provider');
  await s.getByLabel('An external disk or folder').check();

  // The folder dialog, by keyboard: Choose…, then Test and Save.
  await harness('/test/dialog', { folder });
  await s.getByRole('button', { name: 'Choose…' }).focus();
  await page.keyboard.press('Enter');
  await until(async () => (await s.getByLabel('Folder', { exact: true }).inputValue()) === folder, 'the folder chosen in the field');
  await s.getByRole('button', { name: 'Test' }).click();
  const result = s.getByTestId('offsite-test');
  await until(async () => (await result.innerText()) === 'It works: Spark can keep the copy there. Press Save to start it.', 'the test saying it works');
  console.log(`# Test: ${await result.innerText()}`);
  await s.getByRole('button', { name: 'Save' }).click();

  await until(async () => /^Off-site copy up to date, last shipped (just now|a minute ago)\.$/.test(await status.innerText()), 'the status line saying it last shipped', 30_000);
  console.log(`# Status: ${await status.innerText()}`);
  assert.ok(existsSync(join(folder, 'spark-backup.json')), 'the copy is in the folder');
  const recovery = s.getByLabel('Recovery text');
  assert.ok((await recovery.inputValue()).includes(`Where the copy is: file://${folder}\n`), await recovery.inputValue());
  assert.equal(await s.getByRole('button', { name: 'Print' }).isVisible(), true);
  assert.equal(await s.getByRole('button', { name: 'Turn off' }).isVisible(), true);
  await shots('healthy');
});

test('a folder that is a file is refused with plain words, and nothing is saved', async () => {
  const s = await section();
  const field = s.getByLabel('Folder', { exact: true });
  const file = join(disk, 'Spark copy', 'spark-backup.json');
  await field.fill(file);
  await s.getByRole('button', { name: 'Save' }).click();
  const result = s.getByTestId('offsite-test');
  await until(async () => (await result.innerText()).startsWith('That is a file, not a folder. Choose a folder.'), 'the refusal in words');
  assert.equal((await rpc('Settings/Offsite')).choice.folder, folder, 'the folder saved before is kept');
  await field.fill(folder);
});

test('the disk unplugged is said within a pass, with what to do; a day later the status bar says the copy is behind', async () => {
  const s = await section();
  rmSync(disk, { recursive: true, force: true });
  const status = s.getByTestId('offsite-status');
  // A pass every 10 s, the section read every 5 s.
  const t0 = Date.now();
  await until(async () => (await status.innerText()).startsWith('The off-site copy can’t be updated: last shipped'), 'the status line saying the copy fails', 30_000);
  const advice = await s.getByTestId('offsite-advice').innerText();
  console.log(`# Failing after ${Math.round((Date.now() - t0) / 1000)} s: ${await status.innerText()} ${advice}`);
  assert.ok(Date.now() - t0 < 60_000, 'said within a minute');
  assert.equal(advice, 'Spark can’t find the disk or folder that holds the copy. Plug the disk back in (or connect the shared folder); Spark goes on by itself once it is back.');
  assert.equal(await page.getByTestId('offsite-bar').count(), 0, 'a disk unplugged a moment ago is not worth a word on the bar');
  await shots('failing');

  // Something new that the copy lacks, and a day goes by.
  await harness('/test/generate', { n: 1 }).then(({ paths }) => rpc('Capture/Files', 'offsite-2', paths));
  await until(async () => Boolean((await rpc('Settings/Status')).backup?.behind_since), 'the copy behind');
  await page.clock.setFixedTime(Date.now() + 25 * 3600_000);
  const bar = page.getByTestId('offsite-bar');
  await until(async () => (await bar.count()) > 0 && (await bar.innerText()) === 'The off-site copy is a day behind', 'the status bar saying the copy is a day behind', 15_000);
  console.log(`# Status bar: ${await bar.innerText()}`);
  await shot(page, 'offsite-behind-statusbar-light');
  assert.deepEqual(await axe(page, 'status bar, copy behind'), []);
  await page.getByRole('button', { name: 'What to do' }).click();
  await s.getByTestId('offsite-advice').waitFor();
  await shots('behind');
});

test('with the family engine, the section says its copy is looked after by whoever runs it, and that it keeps none', async () => {
  await page.context().close().catch(() => {});
  const { context, page: p } = await openOnFamily();
  try {
    await tab(p, 'Settings');
    const s = p.getByTestId('offsite');
    await s.scrollIntoViewIfNeeded();
    const status = s.getByTestId('offsite-status');
    await until(async () => (await status.innerText()) === 'The family engine does not keep an off-site copy. Whoever runs it can set one up.', 'the family engine keeping no copy');
    assert.equal(await s.getByRole('button', { name: 'Test' }).count(), 0, 'nothing to set up for the family engine here');
    await shot(p, 'offsite-family-light');
    assert.deepEqual(await axe(p, 'family engine'), []);
  } finally {
    await context.close();
    await useLocalEngine();
  }
});
