// The reader of words keeps only what it read with confidence (issue 37:
// "a low-confidence reading is not shown as fact"): confidentText over the
// blocks tesseract.js answers, with its per-word confidences (0-100). The
// threshold, minConfidence, and the rule that a line must hold a word of 3
// letters or digits (minLineWord) were measured on printed letters, labels and signs drawn for the
// tests and on the camera photos of ../shared/photos (see the commit that
// added them); the cases below are words and confidences of those reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { better, confidentText, minConfidence, minLineConfidence, minLineWord, minWordInLine, wantsSecondLook, type ReadBlock } from '../src/ocrlane.js';

/** page builds blocks from paragraphs of lines of [word, confidence]. */
function page(...paragraphs: [string, number][][][]): ReadBlock[] {
  return [{ paragraphs: paragraphs.map((lines) => ({ lines: lines.map((ws) => ({ words: ws.map(([text, confidence]) => ({ text, confidence })) })) })) }];
}

const cases: { name: string; blocks: ReadBlock[] | null; want: string; dropped: number }[] = [
  { name: 'no blocks at all (a blank photo)', blocks: null, want: '', dropped: 0 },
  { name: 'an empty page', blocks: [], want: '', dropped: 0 },
  {
    name: 'a printed bill: every word sure, kept as read, line by line',
    blocks: page([[['Severn', 96], ['Water', 96]], [['Your', 96], ['reference', 96], ['RD/7731/Q', 93]], [['Amount', 96], ['due', 96], ['41.20', 94]]]),
    want: 'Severn Water\nYour reference RD/7731/Q\nAmount due 41.20',
    dropped: 0,
  },
  {
    name: 'paragraphs stay apart, with an empty line between them',
    blocks: page([[['Dear', 95], ['Mr', 95], ['Hartley,', 95]]], [[['Your', 96], ['reference', 96], ['RD/7731/Q', 92]]]),
    want: 'Dear Mr Hartley,\n\nYour reference RD/7731/Q',
    dropped: 0,
  },
  {
    name: 'in a line of sure words, a word less sure stays; one under minWordInLine does not',
    blocks: page([[['Thank', minConfidence - 1], ['you', minConfidence], ['for', 92], ['yuor', minWordInLine - 1], ['payment.', 91]]]),
    want: 'Thank you for payment.',
    dropped: 1,
  },
  {
    name: 'a line of codes and numbers tesseract is sure of as a line stays, its words under minConfidence',
    blocks: [{ paragraphs: [{ lines: [
      { confidence: 72, words: [{ text: 'HR8', confidence: 61 }, { text: '2JF', confidence: 58 }] },
      { confidence: minLineConfidence, words: [{ text: '340g', confidence: 77 }] },
    ] }] }],
    want: 'HR8 2JF\n340g',
    dropped: 0,
  },
  {
    name: 'the same words in a line tesseract is unsure of go',
    blocks: [{ paragraphs: [{ lines: [{ confidence: minLineConfidence - 1, words: [{ text: 'HR8', confidence: 61 }, { text: '2JF', confidence: 58 }] }] }] }],
    want: '',
    dropped: 2,
  },
  {
    name: 'a textured photo (gravel): sure-looking marks without a letter or digit go, unsure letters go',
    blocks: page([[['\\', 92], ['=', 92], [')', 88], ['»', 86], ['®', 82]], [['REIN', 37], ['Jed', 30], [':', 24], ['ICR', 41]]]),
    want: '',
    dropped: 9,
  },
  {
    name: 'a camera photo (iPhone 6): a lone sure word of two letters is no line of text',
    blocks: page([[['3', 43], ['<', 20], ['Re', 38]], [['vy', 88]], [['4', 92], ['1', 91]]]),
    want: '',
    dropped: 6,
  },
  {
    name: 'a texture read as a JPEG: lone letters, however sure, are no line of text',
    blocks: page([[['NY', 88], ['A', 90], ['\\', 93]]]),
    want: '',
    dropped: 3,
  },
  {
    name: 'a sign in a camera photo (Nikon D3S): the banner\'s words, not the texture around them',
    blocks: page([[['-”', 30], ['PARIS', 95], ['y', 12]], [['LONG', 93]], [['Vey', 44], ['0', 40], ['4', 61]]]),
    want: 'PARIS\nLONG',
    dropped: 5,
  },
  {
    name: 'a label: a short word beside sure ones stays in its line',
    blocks: page([[['500', 95], ['g', 93], ['Organic', 96], ['oat', 96], ['milk', 96]]]),
    want: '500 g Organic oat milk',
    dropped: 0,
  },
  {
    name: 'empty paragraphs and lines between kept ones leave no runs of empty lines',
    blocks: [
      { paragraphs: [{ lines: [{ words: [['NO', 93], ['PARKING', 95]].map(([t, c]) => ({ text: t as string, confidence: c as number })) }] }] },
      { paragraphs: [{ lines: [{ words: [{ text: '~', confidence: 12 }] }] }, { lines: [] }] },
      { paragraphs: [{ lines: [{ words: [{ text: 'Mon-Fri', confidence: 91 }, { text: '8am-6pm', confidence: 90 }] }] }] },
    ],
    want: 'NO PARKING\n\nMon-Fri 8am-6pm',
    dropped: 1,
  },
  {
    name: 'spaces tesseract leaves in a word are trimmed',
    blocks: page([[[' Platform ', 96], ['4 ', 96]]]),
    want: 'Platform 4',
    dropped: 0,
  },
];

for (const c of cases) {
  test(`confidentText: ${c.name}`, () => {
    const got = confidentText(c.blocks);
    assert.equal(got.text, c.want);
    assert.equal(got.dropped, c.dropped, 'the words left out are counted');
  });
}

test('confidentText: the threshold is the one measured, and a caller may ask for another', () => {
  assert.equal(minConfidence, 85);
  assert.equal(minLineWord, 3);
  const blocks = page([[['Leed', 88], ['S', 84], ['to', 94]]]);
  assert.equal(minLineConfidence, 60);
  assert.equal(minWordInLine, 40);
  assert.equal(confidentText(blocks).text, 'Leed S to');
  assert.equal(confidentText(blocks, 90).text, '', 'only "to" is surer than 90: two letters are no line');
});

// A reading that left out a quarter or more of its words gets a second
// look with a local threshold, and the better of the two is kept.
test('a second look only where much was left out, and the reading with more letters kept', () => {
  for (const [k, want] of [
    [{ text: 'Severn Water\nYour reference RD/7731/Q', dropped: 0 }, false],
    [{ text: 'Severn Water\nYour reference RD/7731/Q', dropped: 1 }, false],
    [{ text: 'Severn Water Your', dropped: 1 }, true],
    [{ text: 'Severn Water Your reference', dropped: 1 }, false],
    [{ text: 'Severn Water Your reference RD/7731/Q', dropped: 1 }, false],
    [{ text: 'Severn Water', dropped: 2 }, true],
    [{ text: '', dropped: 419 }, true],
    [{ text: '', dropped: 0 }, false],
  ] as const) {
    assert.equal(wantsSecondLook(k), want, `${JSON.stringify(k)}`);
  }
  const shadowed = { text: 'Dear Mr', dropped: 40 };
  const local = { text: 'Dear Mr Hartley,\nYour reference RD/7731/Q', dropped: 2 };
  assert.equal(better(shadowed, local), local);
  assert.equal(better(local, shadowed), local);
  assert.equal(better({ text: 'ab', dropped: 0 }, { text: 'ba', dropped: 9 }).dropped, 0, 'a tie keeps the first');
});
