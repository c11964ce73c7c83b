// Every call of the package against the command line of the same packages, on every agent's
// fixtures (testdata/agents/*/) and every real capture of ../shared/corpus: the same findings
// (`check --format json`), the same common events (`fmt --to common`), the same statistics (one
// file of `stats --format json`), the same rules (`sjlint rules`); and the async calls giving
// what the others give.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { REPO, cli, cliJson, cliLines, corpus, fixtures, install, missing } from '../scripts/test-helpers.mjs';

const skip = missing();
const FILES = skip ? [] : [...fixtures(), ...corpus()];
let pkg;

// The same value, keys in the same order (as the command line writes them).
function same(got, want) {
  assert.deepEqual(got, want);
  assert.equal(JSON.stringify(got), JSON.stringify(want));
}

describe('the API agrees with the command line', { skip: skip ?? false }, () => {
  before(() => {
    pkg = install();
    process.chdir(REPO);
  });
  after(() => pkg.remove());

  test('on the fixtures of every agent, and the corpus', () => {
    assert.ok(fixtures().length > 50, 'testdata/agents holds the fixtures');
    const agents = new Set();
    for (const file of FILES) {
      const bytes = fs.readFileSync(file);
      const want = cliJson(pkg.binary, ['check', '--isolated', '--format', 'json', file]);
      const got = pkg.sjlint.check(file);
      same(got.findings, want);
      assert.equal(got.bytes, bytes.length, file);
      if (got.agent) {
        agents.add(got.agent);
      }
      // Bytes are named "-", as the command line names its standard input.
      const fromStdin = cliJson(pkg.binary, ['check', '--isolated', '--format', 'json', '-'], bytes);
      same(pkg.sjlint.check(bytes).findings, fromStdin);

      same(pkg.sjlint.toCommon(file), cliLines(pkg.binary, ['fmt', '--isolated', '--to', 'common', file]));

      const stats = cliJson(pkg.binary, ['stats', '--isolated', '--format', 'json', file]).files;
      assert.equal(stats.length, 1);
      same(pkg.sjlint.stats(file), stats[0]);
    }
    // Every agent of the registry was met (twelve streams, and their logs).
    assert.ok(agents.size >= 12, [...agents].join(' '));
  });

  test('with options, as the command line takes them', () => {
    const cases = [
      [{ agent: 'claude' }, ['--agent', 'claude']],
      [{ select: ['framing'] }, ['--select', 'framing']],
      [{ select: 'lifecycle', ignore: 'missing-result' }, ['--select', 'lifecycle', '--ignore', 'missing-result']],
      [{ ignore: ['unfinished-tool-call'] }, ['--ignore', 'unfinished-tool-call']],
      [{ severity: { 'unfinished-tool-call': 'warning' } }, ['--severity', 'unfinished-tool-call=warning']],
    ];
    for (const [options, flags] of cases) {
      for (const file of ['testdata/sample-with-problem.ndjson', 'testdata/many-findings.ndjson']) {
        const want = cliJson(pkg.binary, ['check', '--isolated', '--format', 'json', ...flags, file]);
        same(pkg.sjlint.check(file, options).findings, want);
      }
    }
    const all = pkg.sjlint.check('testdata/many-findings.ndjson').findings;
    assert.ok(all.length > 3);
    same(pkg.sjlint.check('testdata/many-findings.ndjson', { limit: 3 }).findings, all.slice(0, 3));
  });

  test('a file: URL is read as its path', async () => {
    const file = path.join(REPO, 'testdata/sample-with-problem.ndjson');
    const url = pathToFileURL(file);
    same(pkg.sjlint.check(url), pkg.sjlint.check(file));
    same(await pkg.sjlint.statsAsync(url), pkg.sjlint.stats(file));
    assert.equal(pkg.sjlint.check(url).findings[0].file, file);
  });

  test('rules() lists what `sjlint rules` lists', () => {
    const out = cli(pkg.binary, ['rules']);
    assert.equal(out.status, 0);
    const want = out.stdout.toString().trim().split('\n').map((line) => {
      const [, name, group, severity, summary] = /^(\S+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(line);
      return { name, group, severity, summary };
    });
    assert.ok(want.length > 20);
    same(pkg.sjlint.rules(), want);
  });

  test('the async calls give what the others give', async () => {
    for (const file of fixtures()) {
      same(await pkg.sjlint.checkAsync(file), pkg.sjlint.check(file));
      same(await pkg.sjlint.checkAsync(fs.readFileSync(file)), pkg.sjlint.check(fs.readFileSync(file)));
      same(await pkg.sjlint.toCommonAsync(file), pkg.sjlint.toCommon(file));
      same(await pkg.sjlint.statsAsync(file), pkg.sjlint.stats(file));
    }
    // Side by side on the pool, each its own.
    const files = fixtures().slice(0, 8);
    const all = await Promise.all(files.map((f) => pkg.sjlint.checkAsync(f)));
    all.forEach((got, i) => same(got, pkg.sjlint.check(files[i])));
  });

  test('index.d.ts declares every export, and no other', () => {
    const dts = fs.readFileSync(path.join(REPO, 'node/sjlint/index.d.ts'), 'utf8');
    const declared = [...dts.matchAll(/^export (?:function|class|const) (\w+)/gm)].map((m) => m[1]);
    assert.deepEqual([...new Set(declared)].sort(), Object.keys(pkg.sjlint).sort());
  });

  test('the version is the command line\'s', () => {
    const out = cli(pkg.binary, ['--version']);
    assert.equal(out.stdout.toString().trim(), `sjlint ${pkg.sjlint.version}`);
  });
});
