// Bad arguments throw an Error or a TypeError that says what is wrong, and bad bytes are
// findings: never a crash of the process, whatever the call, sync or async.

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { REPO, cliJson, cliLines, install, missing } from '../scripts/test-helpers.mjs';

const skip = missing();
let pkg;

describe('bad input', { skip: skip ?? false }, () => {
  before(() => {
    pkg = install();
    process.chdir(REPO);
  });
  after(() => pkg.remove());

  test('a path that does not exist: the error of reading it', async () => {
    const { sjlint } = pkg;
    for (const call of [sjlint.check, sjlint.toCommon, sjlint.stats]) {
      assert.throws(() => call('no/such/run.ndjson'), { code: 'ENOENT' });
    }
    for (const call of [sjlint.checkAsync, sjlint.toCommonAsync, sjlint.statsAsync]) {
      await assert.rejects(call('no/such/run.ndjson'), { code: 'ENOENT' });
    }
    // A directory is no transcript either.
    assert.throws(() => sjlint.check('testdata'), { code: 'EISDIR' });
  });

  test('a source of the wrong type: a TypeError', async () => {
    const { sjlint } = pkg;
    for (const source of [42, null, undefined, {}, [1, 2], true]) {
      assert.throws(() => sjlint.check(source), { name: 'TypeError', message: /source is a Buffer/ });
      assert.throws(() => sjlint.stats(source), TypeError);
      await assert.rejects(sjlint.checkAsync(source), TypeError);
    }
    const s = new sjlint.Stream();
    assert.throws(() => s.feed(42), { name: 'TypeError', message: /feed takes a Buffer/ });
    assert.throws(() => s.feed(undefined), TypeError);
  });

  test('bad options: the command line\'s message', async () => {
    const { sjlint } = pkg;
    const run = Buffer.from('{"type":"system","subtype":"init","session_id":"s"}\n');
    assert.throws(() => sjlint.check(run, { agent: 'nobody' }), { message: /`nobody` is not an agent sjlint knows/ });
    await assert.rejects(sjlint.checkAsync(run, { agent: 'nobody' }), { message: /not an agent/ });
    assert.throws(() => sjlint.check(run, { select: ['no-such-rule'] }), { message: /no-such-rule/ });
    assert.throws(() => sjlint.check(run, { severity: { 'missing-result': 'loud' } }), { message: /loud/ });
    assert.throws(() => new sjlint.Stream({ ignore: 'nothing-at-all' }), { message: /nothing-at-all/ });
    assert.throws(() => sjlint.check(run, { agent: 5 }), TypeError);
    assert.throws(() => sjlint.check(run, { limit: -1 }), TypeError);
    assert.throws(() => sjlint.check(run, { limit: 1.5 }), TypeError);
    assert.throws(() => sjlint.check(run, { select: [1] }), TypeError);
    assert.throws(() => sjlint.check(run, { severity: 'error' }), TypeError);
    assert.throws(() => sjlint.check(run, 'claude'), TypeError);
    assert.throws(() => sjlint.check(run, { agnet: 'claude' }), { name: 'TypeError', message: /no option "agnet"/ });
    assert.throws(() => sjlint.toCommon(run, { select: 'framing' }), TypeError);
    assert.throws(() => new sjlint.Stream({ events: 'yes' }), TypeError);
  });

  test('invalid UTF-8, binary garbage, an empty input: findings', async () => {
    const { sjlint } = pkg;
    const bad = Buffer.concat([Buffer.from('{"type":"system","subtype":"init","session_id":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}\n')]);
    const rules = sjlint.check(bad).findings.map((f) => f.rule);
    assert.ok(rules.includes('invalid-utf8'), rules.join(' '));
    assert.deepEqual((await sjlint.checkAsync(bad)).findings, sjlint.check(bad).findings);

    const garbage = crypto.randomBytes(1 << 20);
    garbage[1000] = 10; // at least two records
    const found = sjlint.check(garbage);
    assert.ok(found.findings.length > 0);
    assert.equal(found.bytes, garbage.length);
    assert.ok(Array.isArray(sjlint.toCommon(garbage)));
    assert.equal(sjlint.stats(garbage).bytes, garbage.length);
    const s = new sjlint.Stream();
    for (let at = 0; at < garbage.length; at += 4099) {
      s.feed(garbage.subarray(at, at + 4099));
    }
    assert.ok(s.finish().length >= 0);
    assert.equal(s.bytes, garbage.length);

    assert.deepEqual(sjlint.check(Buffer.alloc(0)).findings.map((f) => f.rule), ['empty-stream']);
    assert.deepEqual(sjlint.check(new Uint8Array(0)).findings.map((f) => f.rule), ['empty-stream']);
  });

  test('arguments nested 100,000 deep: the command line\'s findings and events, whole', async () => {
    const { sjlint } = pkg;
    const n = 100_000;
    const deep = `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const run = Buffer.from([
      '{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","model":"claude-sonnet-4-5"}',
      `{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":${deep}}]},"parent_tool_use_id":null,"session_id":"s1"}`,
      '',
    ].join('\n'));
    const found = sjlint.check(run);
    assert.deepEqual(found.findings, cliJson(pkg.binary, ['check', '--isolated', '--format', 'json', '-'], run));
    assert.ok(found.findings.some((f) => f.rule === 'unfinished-tool-call'));
    const events = await sjlint.toCommonAsync(run);
    const want = cliLines(pkg.binary, ['fmt', '--isolated', '--to', 'common', '-'], run);
    assert.equal(events.length, want.length);
    const start = events.find((e) => e.type === 'tool_start');
    let depth = 0;
    for (let v = start.args; typeof v === 'object'; v = v.a) {
      depth += 1;
    }
    assert.equal(depth, n);
  });
});
