// The reader of words keeps only what it read with confidence (issue 37:
// "a low-confidence reading is not shown as fact"): confidentText over the
// blocks tesseract.js answers, with its per-word confidences (0-100). The
// threshold, minConfidence, and the rule that a line must hold a word of 3
// letters or digits (minLineWord) were measured on printed letters, labels and signs drawn for the
// tests and on the camera photos of ../shared/photos (see the commit that
// added them); the cases below are words and confidences of those reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { confidentText, minConfidence, minLineWord, type ReadBlock } from '../src/ocrlane.js';

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
    name: 'a word just at the threshold is kept, one just under it is not',
    blocks: page([[['Thank', minConfidence - 1], ['you', minConfidence], ['for', 92], ['your', 93], ['payment.', 91]]]),
    want: 'you for your payment.',
    dropped: 1,
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
  assert.equal(confidentText(blocks).text, 'Leed to');
  assert.equal(confidentText(blocks, 80).text, 'Leed S to');
  assert.equal(confidentText(blocks, 90).text, '', 'only "to" is surer than 90: two letters are no line');
});
