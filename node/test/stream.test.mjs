// A Stream fed in 7-byte pieces against the whole: the same items as fed at once, its findings
// those of check() and its events those of toCommon(), on every agent's fixtures; fed strings;
// and a finished stream refusing more.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { REPO, fixtures, install, missing } from '../scripts/test-helpers.mjs';

const skip = missing();
let pkg;

function fed(sjlint, bytes, size, options) {
  const s = new sjlint.Stream(options);
  const items = [];
  for (let at = 0; at < bytes.length; at += size) {
    items.push(...s.feed(bytes.subarray(at, at + size)));
  }
  items.push(...s.finish());
  return { items, records: s.records, bytes: s.bytes, agent: s.agent };
}

describe('Stream', { skip: skip ?? false }, () => {
  before(() => {
    pkg = install();
    process.chdir(REPO);
  });
  after(() => pkg.remove());

  test('fed 7 bytes at a time gives what the whole gives', () => {
    const { sjlint } = pkg;
    for (const file of fixtures()) {
      const bytes = fs.readFileSync(file);
      const whole = fed(sjlint, bytes, Math.max(bytes.length, 1));
      const pieces = fed(sjlint, bytes, 7);
      assert.deepEqual(pieces, whole, file);
      const checked = sjlint.check(bytes);
      assert.deepEqual(whole.items.filter(sjlint.isFinding), checked.findings, file);
      assert.deepEqual(whole.items.filter((i) => !sjlint.isFinding(i)), sjlint.toCommon(bytes), file);
      assert.equal(whole.records, checked.records, file);
      assert.equal(whole.bytes, bytes.length, file);
      assert.equal(whole.agent, checked.agent, file);
      // events: false gives the findings alone.
      assert.deepEqual(fed(sjlint, bytes, 7, { events: false }).items, checked.findings, file);
    }
  });

  test('takes strings and Uint8Arrays as well as Buffers', () => {
    const { sjlint } = pkg;
    const text = fs.readFileSync('testdata/agents/claude/tool-run.ndjson', 'utf8');
    const s = new sjlint.Stream({ agent: 'claude' });
    const items = [];
    for (let at = 0; at < text.length; at += 7) {
      const piece = text.slice(at, at + 7);
      items.push(...s.feed(at % 2 ? piece : new TextEncoder().encode(piece)));
    }
    items.push(...s.finish());
    assert.deepEqual(items, fed(sjlint, Buffer.from(text), 1 << 20).items);
    assert.ok(items.some((i) => i.type === 'tool_start'));
  });

  test('once finished, refuses to be fed', () => {
    const s = new pkg.sjlint.Stream();
    assert.equal(s.finished, false);
    s.feed('{"type":"system","subtype":"init","session_id":"s"}\n');
    s.finish();
    assert.equal(s.finished, true);
    assert.throws(() => s.feed('{}\n'), { name: 'Error', message: /finished/ });
    assert.throws(() => s.finish(), { name: 'Error', message: /finished/ });
  });
});
