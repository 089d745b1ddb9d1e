// The UI's words: whole-word snapping of a selection, what a card or tile
// says of a moment's readings, and failed readings in plain sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { wordRange, preview, readingError, latest, firstLines, parkedAdvice, problem, tallyWords, outboxLine, outboxSummary, leftoversWords, sizeWords, engineBanner, engineStateWords, startWords, badgeWords, moveWords, startProblem, sentWords, memberName, addedByWords, keptByWords, keptLine, keeperOnlyWords, ownerOnlyWords, phraseRemoveProblem, writeRefused, writeTurnedDown, when, pippaMissing, pippaSetUp, queuedWords, keptWords, sendingWords, cardQueued, cardName } from '../src/words.js';
import { readFail, pippaState } from '../src/codes.js';

const text = 'A bright afternoon in the garden: a path leads to a red door, and someone left a blue cup on the step.';
const snap = (from: string, to: string) => {
  const s = text.indexOf(from);
  const e = text.indexOf(to) + to.length;
  const [a, b] = wordRange(text, s, e);
  return text.slice(a, b);
};

test('a selection snaps to whole words', () => {
  assert.equal(snap('ed do', 'ed do'), 'red door');
  assert.equal(snap('d door, and someone left a blue cup on the st', 'st'), 'red door, and someone left a blue cup on the step');
  assert.equal(snap(' red', 'door, '), 'red door');
  assert.equal(snap('garden:', 'garden:'), 'garden');
  assert.deepEqual(wordRange(text, 5, 5), [5, 5]);
  const [a0, b0] = wordRange('  , ', 0, 4);
  assert.equal(a0, b0, 'nothing but spaces and commas keeps nothing');
  assert.equal(((t: string) => { const [a, b] = wordRange(t, 3, 8); return t.slice(a, b); })("it's grand-dad's"), "it's grand-dad's");
});

const r = (status: string, text = '', mode = 'practical', error = '') => ({ status, text, mode, error });

const seated = { engine: 'local', pippa: pippaState.seated };
const t0 = { photos: 0, notes: 0, changes: 0 };

test('a card says the latest reading, or what Pippa is doing', () => {
  assert.deepEqual(preview({ kind: 'photo', pending: true, readings: [] }, seated).state, 'pending');
  assert.equal(preview({ kind: 'photo', pending: false, readings: [r('queued')] }, seated).state, 'waiting');
  assert.equal(preview({ kind: 'photo', pending: false, readings: [r('running')] }, seated).state, 'working');
  assert.deepEqual(preview({ kind: 'photo', pending: false, readings: [r('finished', 'One'), r('running', '', 'careful')] }, seated), { state: 'reading', text: 'One' });
  assert.equal(preview({ kind: 'photo', pending: false, readings: [r('failed', '', 'practical', 'x')] }, seated).state, 'failed');
  assert.equal(latest([r('finished', 'old'), r('finished', 'new', 'careful'), r('failed')])?.text, 'new');
});

test('with no Pippa, a photo waiting for her says so and never that she comes soon; sent only to the family engine (issue 36)', () => {
  const here = { engine: 'local', pippa: pippaState.noSeat };
  const family = { engine: 'remote', pippa: pippaState.noSeat };
  const queued = { kind: 'photo', pending: false, readings: [r('queued')] };
  assert.deepEqual(preview(queued, here), { state: 'no-pippa', text: 'Pippa isn’t set up on this computer yet, so she can’t read this.' });
  assert.deepEqual(preview(queued, family), { state: 'no-pippa', text: 'The family engine has no Pippa yet; ask whoever looks after it.' });
  assert.equal(preview({ kind: 'photo', pending: true, readings: [] }, here).state, 'no-pippa', 'not “Pippa will read it once it is sent”');
  assert.deepEqual(cardQueued(here), preview(queued, here));
  assert.deepEqual(cardQueued(seated), { state: 'waiting', text: 'Waiting for Pippa…' });
  assert.equal(pippaSetUp(here), 'Set her up');
  assert.equal(pippaSetUp(family), '', 'Dad cannot set up the family engine’s Pippa');
  assert.equal(pippaSetUp(seated), '');
  for (const w of [here, family]) assert.doesNotMatch(`${queuedWords(w)} ${preview(queued, w).text}`, /soon|Waiting for Pippa/);
  assert.equal(queuedWords(seated), 'Pippa will look at it soon.');
  // An engine that does not say (an older one): no promise, no alarm.
  const unknown = { engine: 'remote', pippa: '' };
  assert.equal(pippaMissing(unknown), '');
  assert.equal(queuedWords(unknown), 'Pippa has not looked at it yet.');
  assert.equal(keptWords({ engine: 'local', pippa: '' }), 'Kept on this computer');
  assert.equal(keptWords({ engine: 'remote', pippa: '' }), 'Sent to the family engine');
  assert.doesNotMatch(sendingWords({ engine: 'local', pippa: '' }), /Send/, 'nothing is sent from this computer to itself');
  assert.equal(sendingWords({ engine: 'remote', pippa: '' }), 'Safe on this computer. Sending…');
  assert.equal(outboxLine(t0, t0, true, 'local').waiting, '', 'on this computer nothing is sent: the bar says “Kept on this computer” already');
  assert.equal(outboxLine(t0, t0, true, 'remote').waiting, 'Everything sent');
  assert.equal(outboxSummary(t0, t0, 'local'), 'Everything is kept on this computer. Nothing is waiting.');
  assert.equal(outboxSummary(t0, t0, 'remote'), 'Everything is sent to the family engine. Nothing is waiting.');
});


test('a failed reading is a sentence without addresses, from its code; the raw error is only ever the detail', () => {
  const e = readingError(readFail.pippaUnreachable);
  assert.doesNotMatch(e, /127\.0\.0\.1|seat|dial/);
  assert.match(e, /Try again/);
  assert.match(readingError(readFail.pippaRefused), /Settings/);
});

test('a parked photo too large for the engine: saving is the action that can work', () => {
  assert.equal(parkedAdvice('media_too_large').main, 'save');
  assert.equal(parkedAdvice('something_else').main, 'retry');
});

test('first lines stop at a word', () => {
  assert.equal(firstLines('short'), 'short');
  const f = firstLines(text, 40);
  assert.ok(f.endsWith('…') && f.length <= 41, f);
  assert.ok(text.startsWith(f.slice(0, -1)), f);
});

test('an engine error in plain words, the engine’s own behind Details', () => {
  assert.match(problem({ code: 'caption_too_long', detail: 'the caption is 70000 bytes; at most 65536 bytes' }).sentence, /too long/);
  assert.equal(problem({ code: 'no_phrases', detail: 'no phrase kept' }).detail, '');
  const f = problem({ code: 'forbidden', detail: 'moment X was created by another device' });
  assert.match(f.sentence, /another family member/);
  assert.doesNotMatch(f.sentence, /key in Settings|connection text/);
  assert.equal(f.detail, 'moment X was created by another device');
  assert.match(problem({ code: 'too_many_readings', detail: 'you (family member "dad", on all your devices) have asked for 300 readings today' }).sentence, /today.*on its own/);
  assert.match(problem({ code: 'too_many_requests', detail: '203.0.113.7 already has 64 requests at work on the engine' }).sentence, /busy.*Try again/);
  assert.match(problem({ code: 'too_many_turns', detail: 'each family member may ask for at most 25 readings of someone else’s moment' }).sentence, /as many readings of this moment/);
  assert.match(problem({ code: 'search_too_broad', detail: 'That search matches too much' }).sentence, /another word/);
  const x = problem({ code: 'internal', detail: 'database is locked' });
  assert.doesNotMatch(x.sentence, /database/);
  assert.equal(x.detail, 'database is locked');
});

const t = (photos: number, notes: number, changes: number) => ({ photos, notes, changes });

test('what waits is named for what it is: photos, notes, changes', () => {
  assert.equal(tallyWords(t(0, 0, 0)), '');
  assert.equal(tallyWords(t(2, 0, 0)), '2 photos');
  assert.equal(tallyWords(t(0, 0, 1)), '1 change');
  assert.equal(tallyWords(t(0, 1, 0)), '1 note');
  assert.equal(tallyWords(t(2, 0, 1)), '2 photos and 1 change');
  assert.equal(tallyWords(t(1, 2, 3)), '1 photo, 2 notes and 3 changes');
});

test('the banner, the status bar and its “needs you” say what waits, never a photo that is not there', () => {
  const none = t(0, 0, 0);
  assert.deepEqual(outboxLine(none, none, false, 'remote'), {
    banner: 'Anything you add waits safely on this computer and is sent on its own when it is back.',
    waiting: 'Everything sent',
    parked: '',
  });
  const change = outboxLine(t(0, 0, 1), none, false, 'remote');
  assert.equal(change.banner, '1 change is waiting safely on this computer and will be sent on its own when it is back.');
  assert.equal(change.waiting, '1 change waiting to be sent');
  assert.equal(outboxLine(t(2, 0, 0), none, false, 'remote').banner, '2 photos are waiting safely on this computer and will be sent on their own when it is back.');
  assert.equal(outboxLine(t(2, 0, 1), none, false, 'remote').banner, '2 photos and 1 change are waiting safely on this computer and will be sent on their own when it is back.');
  assert.equal(outboxLine(t(1, 1, 0), none, false, 'remote').waiting, '1 photo and 1 note waiting to be sent');
  assert.equal(outboxLine(none, t(0, 0, 1), false, 'remote').parked, '1 change needs you');
  assert.equal(outboxLine(none, t(1, 0, 1), false, 'remote').parked, '1 photo and 1 change need you');
  for (const l of [outboxLine(t(0, 2, 3), t(0, 1, 1), false, 'remote')]) assert.doesNotMatch(`${l.banner} ${l.waiting} ${l.parked}`, /photo/);
});

test('while the engine answers, what waits is being sent: never “waiting” beside an engine that is up (issue 36)', () => {
  const none = t(0, 0, 0);
  assert.equal(outboxLine(t(0, 0, 1), none, true, 'remote').waiting, 'Sending 1 change…');
  assert.equal(outboxLine(t(1, 1, 0), none, true, 'remote').waiting, 'Sending 1 photo and 1 note…');
  assert.equal(outboxLine(t(0, 0, 1), none, false, 'remote').waiting, '1 change waiting to be sent');
  assert.equal(outboxLine(none, none, true, 'remote').waiting, 'Everything sent');
  assert.equal(outboxLine(none, t(0, 0, 1), true, 'remote').parked, '1 change needs you');
  assert.doesNotMatch(outboxLine(t(2, 0, 3), none, true, 'remote').waiting, /waiting/);
});

test('sizes: the same words as the spark command (outbox.FormatSize), from one table', () => {
  const table = JSON.parse(readFileSync(new URL('../../../test/testdata/sizes.json', import.meta.url), 'utf8')) as [number, string][];
  assert.ok(table.length >= 10);
  for (const [n, want] of table) assert.equal(sizeWords(n), want, `${n} bytes`);
});

test('an original on its way says how much of it the engine holds, in the sizes’ words', () => {
  assert.equal(sentWords(12 * 1024 ** 2, 34 * 1024 ** 2), '12.0 MB of 34.0 MB sent');
  assert.equal(sentWords(512 * 1024, 3 * 1024 ** 2), '512 KB of 3.0 MB sent');
});

test('the Outbox summary and the status bar are worded from the same tallies; “Everything sent” only when nothing needs Dad either', () => {
  const t = (photos: number, notes: number, changes: number) => ({ photos, notes, changes });
  const none = t(0, 0, 0);
  assert.equal(outboxSummary(none, none, 'remote'), 'Everything is sent to the family engine. Nothing is waiting.');
  assert.equal(outboxLine(none, none, false, 'remote').waiting, 'Everything sent');
  assert.equal(outboxLine(none, t(1, 0, 0), false, 'remote').waiting, '', 'a parked photo: not “Everything sent”');
  assert.equal(outboxSummary(none, t(1, 0, 0), 'remote'), '1 photo needs you to decide what to do.');
  assert.equal(outboxSummary(t(1, 0, 1), none, 'remote'), '1 photo and 1 change are on the way, safe on this computer until then.');
});

test('leftovers: the same sentences as the spark command (cmd/spark/words.go), from the outbox’s numbers', () => {
  assert.equal(leftoversWords({ sent: 0, discarded: 0, interrupted: 0 }), '');
  assert.equal(leftoversWords({ sent: 3, discarded: 0, interrupted: 0 }), '3 photos already sent could not be removed from this computer yet (a program may have them open). Spark tries again on its own.');
  assert.equal(
    leftoversWords({ sent: 1, discarded: 1, interrupted: 1 }),
    '1 photo already sent, 1 photo you discarded and 1 copy left from an import that was interrupted could not be removed from this computer yet (a program may have them open). Spark tries again on its own.',
  );
});

test('the banner and the status bar say where moments are kept and why the engine is away, worded here, not in main.ts', () => {
  assert.deepEqual(engineBanner('remote', false), { why: 'The family engine can’t be reached right now.', link: '' });
  assert.deepEqual(engineBanner('local', false), { why: 'Spark’s own engine on this computer isn’t answering right now.', link: '' });
  assert.deepEqual(engineBanner('remote', true), { why: 'The family engine did not accept Spark’s key.', link: 'Paste its connection text again in Settings' });
  assert.equal(engineStateWords('connected', 'remote'), 'Kept on the family engine');
  assert.equal(engineStateWords('connected', 'local'), 'Kept on this computer');
  assert.equal(engineStateWords('refused', 'remote'), 'Kept on the family engine, which did not accept Spark’s key');
  assert.equal(engineStateWords('offline', 'local'), 'Kept on this computer, which can’t be reached right now');
  assert.equal(engineStateWords('starting', 'local'), 'Spark is starting…');
  assert.equal(startWords(true), 'Spark is starting…');
  assert.equal(startWords(false), 'Spark could not start');
  assert.deepEqual(badgeWords(2, 1), { menu: '2 to send, 1 needs you', label: '2 waiting to be sent, 1 needs you' });
  assert.deepEqual(badgeWords(0, 3), { menu: '3 need you', label: '3 need you' });
  assert.deepEqual(badgeWords(0, 0), { menu: '', label: '' });
});

test('bringing moments along: the offer, the button, the hint and how it went, from the way, the count and a code', () => {
  const v = (o: Partial<Parameters<typeof moveWords>[0]>) => moveWords({ way: 'to_family', lacking: 0, running: false, finished: false, stop: '', refused: 0, ...o });
  const here = v({ way: 'here', lacking: 2 });
  assert.equal(here.offer, "The family engine has 2 moments this computer doesn't.");
  assert.equal(here.button, 'Bring them here');
  assert.equal(here.hint, 'They stay on the family engine too. Readings Pippa already gave come along as they are.');
  assert.equal(v({ way: 'here', lacking: 1 }).offer, "The family engine has 1 moment this computer doesn't.");
  assert.equal(v({ way: 'here', lacking: 1 }).button, 'Bring it here');
  const there = v({ lacking: 3 });
  assert.equal(there.offer, 'The family engine does not have 3 moments that are kept on this computer.');
  assert.equal(there.button, 'Bring my 3 moments along');
  assert.equal(there.hint, 'They stay on this computer too. Readings Pippa already gave come along as they are.');
  assert.equal(v({ lacking: 1 }).offer, 'The family engine does not have 1 moment that is kept on this computer.');
  assert.equal(v({ lacking: 1 }).button, 'Bring my 1 moment along');
  assert.equal(v({ running: true }).message, 'Bringing your moments along…');
  assert.equal(v({ way: 'here', running: true }).message, 'Bringing the family engine’s moments here…');
  assert.equal(v({ finished: true }).message, 'All your moments are on the family engine now. They are still on this computer too.');
  assert.equal(v({ way: 'here', finished: true }).message, 'All your moments are on this computer now. They are still on the family engine too.');
  assert.equal(v({ stop: 'incomplete', refused: 2 }).message, 'The family engine took everything but 2 things. Press the button again to try those again.');
  assert.equal(v({ way: 'here', stop: 'incomplete', refused: 1 }).message, 'This computer took everything but 1 thing. Press the button again to try those again.');
  assert.equal(v({ stop: 'cant_count' }).message, 'Spark can’t tell right now which moments the family engine lacks.');
  assert.equal(v({ stop: 'cant_read' }).message, 'Spark can’t read the moments to bring along.');
  assert.equal(v({ stop: 'stopped' }).message, 'Spark stopped bringing your moments along. Press the button again to go on from where it stopped.');
  assert.deepEqual(v({}), { offer: '', button: '', hint: '', message: '', going: 'You can keep using Spark or close it; press the button again later to go on from where it stopped.' });
});

test('why Spark could not start: the folder named, what to do, the technical reason behind Details', () => {
  const inUse = startProblem({ code: 'engine_in_use', name: '/home/dad/.local/share/spark/engine', detail: 'pid 4242 (spark-engine serve)' });
  assert.match(inUse.sentence, /\/home\/dad\/\.local\/share\/spark\/engine/);
  assert.match(inUse.sentence, /already in use/);
  assert.match(inUse.sentence, /Close the other one/);
  assert.doesNotMatch(inUse.sentence, /engine\.lock/);
  assert.equal(inUse.detail, 'pid 4242 (spark-engine serve)');
  const ob = startProblem({ code: 'outbox_unopened', name: '/home/dad/spark/outbox', detail: 'file is not a database' });
  assert.match(ob.sentence, /outbox/);
  assert.match(ob.sentence, /will not change or delete/);
  assert.match(ob.sentence, /\/home\/dad\/spark\/outbox/);
  for (const code of ['no_data_folder', 'no_log', 'bad_settings', 'engine_failed', 'failed']) {
    const e = startProblem({ code, name: '/home/dad/spark', detail: 'permission denied' });
    assert.ok(e.sentence.length > 20 && !/permission denied/.test(e.sentence), `${code}: ${e.sentence}`);
  }
  assert.match(startProblem({ code: 'bad_settings', name: '/home/dad/spark/settings.json' }).sentence, /move it aside/);
});

test('another family member is named by their name, with a capital, and Dad’s own by no one', () => {
  assert.equal(memberName('mum'), 'Mum');
  assert.equal(memberName('Granny Jo'), 'Granny Jo');
  assert.equal(memberName('élodie'), 'Élodie');
  assert.equal(memberName(''), '');
  assert.equal(addedByWords('mum'), 'Added by Mum');
  assert.equal(addedByWords(''), '', 'the window names no one when the Go side gives no one');
  assert.equal(keptByWords('mum'), 'Kept by Mum');
  assert.equal(keptByWords(''), '');
  const at = '2026-12-06T10:00:00Z';
  assert.equal(keptLine(at, ''), `Kept ${when(at)}`);
  assert.equal(keptLine(at, 'mum'), `Kept by Mum, ${when(at)}`);
  assert.equal(keeperOnlyWords('mum'), 'Mum kept this phrase, so only Mum can remove it.');
  assert.equal(ownerOnlyWords('mum'), 'Only Mum can change its caption or delete it.');
});

test('a phrase’s removal turned down names its keeper when the window knows them', () => {
  const detail = 'phrase keep:x is kept by another family member; only they may remove it';
  const named = phraseRemoveProblem({ code: 'forbidden', detail }, 'mum');
  assert.equal(named.sentence, 'Mum kept this phrase, so only Mum can remove it. Whoever looks after Spark can too.');
  assert.equal(named.detail, detail, 'the engine’s words only behind Details');
  const parked = phraseRemoveProblem({ code: 'forbidden', detail, parked: true }, 'mum');
  assert.match(parked.sentence, /^Mum kept this phrase.*Outbox/);
  const unknown = phraseRemoveProblem({ code: 'forbidden', detail }, '');
  assert.match(unknown.sentence, /^Another family member kept this phrase, so only they can remove it/);
  assert.doesNotMatch(unknown.sentence, /moment|added/, 'a phrase is kept, not added');
  assert.equal(phraseRemoveProblem({ code: 'offline' }, 'mum').sentence, problem({ code: 'offline' }).sentence, 'any other failure is worded as any call’s');
  assert.match(writeRefused('forbidden', 'remote', 'unkeep'), /The phrase was kept by another family member, and only they can remove it/);
  assert.match(writeRefused('forbidden', 'remote', 'caption'), /The moment was added by another family member/);
  assert.equal(writeRefused('forbidden', 'remote', 'unkeep', 'mum'), 'The family engine turned this down, so it was not sent. Mum kept this phrase, and only Mum can remove it. Whoever looks after Spark can too; you can remove this change from this list.');
  assert.match(writeRefused('forbidden', 'remote', 'caption', 'mum'), /Mum added this moment, and only Mum can change it\./);
  assert.equal(writeTurnedDown('unkeep', 'mum'), 'Not sent yet: Mum kept this phrase, and only Mum can remove it. Whoever looks after Spark can too. Spark tries again on its own.');
  assert.equal(writeTurnedDown('delete', 'granny jo'), 'Not sent yet: Granny jo added this moment, and only Granny jo can change it. Whoever looks after Spark can too. Spark tries again on its own.');
});

test('a card’s name is shortened at the end of a word, never in the middle of one', () => {
  assert.equal(cardName('IMG_1234.HEIC'), 'IMG_1234.HEIC');
  assert.equal(cardName('Grandma Edith’s seventieth birthday party in the garden.jpg'), 'Grandma Edith’s seventieth birthday…');
  assert.equal(cardName('aaaa bbbb cccc', 9), 'aaaa bbbb…');
  assert.equal(cardName('IMG_20240512_143022_really_long_name_here.jpg', 20), 'IMG_20240512_143022…');
  assert.equal(cardName('x'.repeat(50), 10), `${'x'.repeat(10)}…`);
});

test('Recently deleted names a note by its first words, a photo by its title, and says when it went', async () => {
  const { deletedTitle, deletedWords } = await import('../src/words.js');
  const note = { kind: 'note', caption: 'Call the surgery about the repeat prescription before Friday, and ask for the new leaflet they promised last time', pending: false, readings: [] };
  assert.equal(deletedTitle(note), 'Call the surgery about the repeat prescription before Friday, and ask for the…');
  assert.equal(deletedTitle({ kind: 'photo', caption: 'Grandpa’s roses', pending: false, readings: [] }), 'Grandpa’s roses');
  const deleted = Date.parse('2026-05-03T09:12:00Z');
  const day = 24 * 60 * 60 * 1000;
  assert.match(deletedWords.when('2026-05-03T09:12:00Z', deleted + day), /^Deleted .*2026.* · removed for good in 29 days$/);
  assert.match(deletedWords.when('2026-05-03T09:12:00Z', deleted + 18.5 * day), / · removed for good in 12 days$/);
  assert.match(deletedWords.when('2026-05-03T09:12:00Z', deleted + 29.5 * day), / · removed for good within a day$/);
  assert.match(deletedWords.when('2026-05-03T09:12:00Z', deleted + 31 * day), / · removed for good within a day$/);
  assert.equal(deletedWords.when(''), 'Deleted');
  assert.equal(deletedWords.restored('Grandpa’s roses'), '“Grandpa’s roses” is back in Moments.');
});

test('the sync line has one source, and the status bar’s leaves out “(see Settings)” for its link', async () => {
  const { syncWords, syncBarWords, statusWord, stepWord, nowWord } = await import('../src/words.js');
  assert.equal(syncWords({ state: 'local', as_of: '' }), '');
  assert.equal(syncWords({ state: 'uptodate', as_of: '' }), 'Up to date');
  assert.equal(syncWords({ state: 'uptodate', as_of: '' }, 2), '', 'nothing "Up to date" while the outbox sends');
  assert.equal(syncWords({ state: 'problem', as_of: '' }), 'Not updating (see Settings)');
  assert.equal(syncBarWords({ state: 'problem', as_of: '' }), 'Not updating');
  assert.equal(statusWord('running'), 'Pippa is reading…');
  assert.equal(statusWord('new_status'), 'new_status');
  assert.equal(stepWord('turn'), 'Pippa asked to read it');
  assert.equal(nowWord('done_already'), 'Almost done…');
});
