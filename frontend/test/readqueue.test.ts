// The reader of words' order (src/readqueue.ts): a photo that has just
// arrived is read before the photos a screen listed, the newest arrival
// first, and no photo waits twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadQueue } from '../src/readqueue.js';

const p = (id: string) => ({ id, url: `/thumb/${id}` });

function drain(q: ReadQueue): string[] {
  const out: string[] = [];
  for (let n = q.next(); n; n = q.next()) out.push(n.id);
  return out;
}

test('the order photos are read in', () => {
  const cases: { name: string; steps: [('arrived' | 'listed'), string][]; want: string[] }[] = [
    { name: 'listed photos keep the order of the list', steps: [['listed', 'a'], ['listed', 'b'], ['listed', 'c']], want: ['a', 'b', 'c'] },
    {
      name: 'a photo just added goes before the backlog',
      steps: [['listed', 'a'], ['listed', 'b'], ['arrived', 'new']],
      want: ['new', 'a', 'b'],
    },
    {
      name: 'of photos added together, the newest first',
      steps: [['listed', 'a'], ['arrived', 'n1'], ['arrived', 'n2'], ['arrived', 'n3']],
      want: ['n3', 'n2', 'n1', 'a'],
    },
    {
      name: 'a listed photo that arrives again moves to the front',
      steps: [['listed', 'a'], ['listed', 'b'], ['arrived', 'b']],
      want: ['b', 'a'],
    },
    {
      name: 'a photo listed again keeps its place',
      steps: [['arrived', 'n'], ['listed', 'a'], ['listed', 'n'], ['listed', 'a']],
      want: ['n', 'a'],
    },
  ];
  for (const c of cases) {
    const q = new ReadQueue();
    for (const [how, id] of c.steps) q[how](p(id));
    assert.equal(q.length, c.want.length, c.name);
    assert.deepEqual(drain(q), c.want, c.name);
    assert.equal(q.length, 0, c.name);
  }
});

test('clear forgets what waits', () => {
  const q = new ReadQueue();
  q.listed(p('a'));
  q.arrived(p('b'));
  q.clear();
  assert.equal(q.next(), undefined);
  assert.equal(q.length, 0);
});
