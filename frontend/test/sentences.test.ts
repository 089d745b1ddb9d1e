// Every sentence and label Dad reads is made in words.ts, and only there:
// this scans the other modules of src/ for string literals that look like
// words for a person and names each by file:line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import ts from 'typescript';

const src = new URL('../../../src/', import.meta.url);

/** skipped are the modules not scanned: the words themselves, the Go
 * side's generated codes, and the reader (OCR), whose errors are for its
 * caller (words.ts words what reaches the screen). */
const skipped = new Set(['words.ts', 'codes.ts', 'ocr.ts', 'ocrlane.ts', 'ocrcheck.ts']);

/** allowed are strings that look like words but are not for a person:
 * key names and the like. */
const allowed = new Set(['Escape', 'Enter', 'Home', 'End', 'ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Tab', 'Backspace', 'Delete', 'Shift', 'BUTTON', 'INPUT', 'TEXTAREA', 'R']);

/** looksLikeWords: a capital word then a space and a lower-case word
 * ("Not sent yet"), a text ending in "…" or "." with a word in it, a
 * capitalised word on its own ("Cancel"), or lower-case words with
 * spaces or a "·" between them (" · its moment was deleted"). ${…}
 * parts read as "{}". */
export function looksLikeWords(s: string): boolean {
  if (allowed.has(s)) return false;
  if (/[A-Z][\p{L}’']*\s+[\p{Ll}“]/u.test(s)) return true;
  if (/\p{L}{2}/u.test(s) && /[….]\s*$/.test(s)) return true;
  if (/^[A-Z][\p{Ll}’']+$/u.test(s.trim())) return true;
  return /\p{Ll}{2,}[’']?\p{Ll}* \p{Ll}{2,}/u.test(s) || /·\s*\p{L}/u.test(s);
}

/** notForDad: a string in console.…(…) or new …Error(…), for whoever
 * reads the console or the technical reason behind "Details"; or a class
 * name (a class property, a className set, classList's arguments). */
function notForDad(n: ts.Node): boolean {
  let v: ts.Node = n;
  while (ts.isConditionalExpression(v.parent) || ts.isParenthesizedExpression(v.parent)) v = v.parent;
  const to = v.parent;
  if (ts.isPropertyAssignment(to) && /^['"]?class(Name)?['"]?$/.test(to.name.getText())) return true;
  if (ts.isBinaryExpression(to) && to.operatorToken.kind === ts.SyntaxKind.EqualsToken && /\.className$/.test(to.left.getText())) return true;
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
    if (ts.isCallExpression(p) && /^console\.|\.classList\./.test(p.expression.getText())) return true;
    if (ts.isNewExpression(p) && /Error$/.test(p.expression.getText())) return true;
  }
  return false;
}

/** stray lists file:line and the text of each string that looks like words. */
export function stray(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n) || ts.isLiteralTypeNode(n)) return;
    let s: string | null = null;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) s = n.text;
    else if (ts.isTemplateExpression(n)) s = [n.head.text, ...n.templateSpans.map((t) => t.literal.text)].join('{}');
    if (s !== null && looksLikeWords(s) && !notForDad(n)) {
      const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
      out.push(`${file}:${line}: ${JSON.stringify(s)}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('the guard knows words from codes', () => {
  assert.ok(looksLikeWords('Not sent yet'));
  assert.ok(looksLikeWords('Saving…'));
  assert.ok(looksLikeWords('Deleted.'));
  assert.ok(looksLikeWords('Cancel'));
  assert.ok(looksLikeWords('Sending all {} again.'));
  assert.ok(!looksLikeWords('retry-all'));
  assert.ok(!looksLikeWords('Escape'));
  assert.ok(!looksLikeWords('{}…'));
  assert.ok(looksLikeWords(' · its moment was deleted'));
  assert.ok(!looksLikeWords('./words'));
  assert.deepEqual(
    stray('x.ts', "h('button', { class: 'row between actions' }, 'Send now'); console.warn('Spark could not start'); throw new Error('ULID part overflowed'); el.className = on ? 'pill waiting' : 'pill';"),
    ['x.ts:1: "Send now"'],
  );
});

test('every sentence Dad reads is made in words.ts', () => {
  const files = readdirSync(src).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !skipped.has(f));
  assert.ok(files.length > 10, `the modules of src/ are found (${files.length})`);
  const found = files.flatMap((f) => stray(`src/${f}`, readFileSync(new URL(f, src), 'utf8')));
  assert.deepEqual(found, [], `words for a person outside words.ts (move them there):\n${found.join('\n')}`);
});
