// `npx sjlint` from the packed tarballs installed into a fresh project: the whole command line,
// its standard streams, exit codes and signals passed through the launcher; and what the
// launcher says on a platform with no package, or when its package is not installed.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO, install, missing } from '../scripts/test-helpers.mjs';

const skip = missing();
let pkg;

function npx(args, input = '') {
  const r = spawnSync('npx', ['--offline', 'sjlint', ...args], { cwd: pkg.dir, input, maxBuffer: 1 << 28 });
  return { status: r.status, signal: r.signal, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function direct(args, input = '') {
  const r = spawnSync(pkg.binary, args, { cwd: pkg.dir, input, maxBuffer: 1 << 28 });
  return { status: r.status, signal: r.signal, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

// The pid of the launcher's one child, once it has started.
async function childOf(pid) {
  const file = `/proc/${pid}/task/${pid}/children`;
  for (;;) {
    const kids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    if (kids) {
      return Number(kids.split(' ')[0]);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

// Waits until `pid` runs `binary` (it has left the launcher's copy it was forked as, which
// has Node.js's own handlers) and handles `signal` (its SigCgt mask says so).
async function handles(pid, binary, signal) {
  const bit = 1n << BigInt(os.constants.signals[signal] - 1);
  for (;;) {
    if (fs.readlinkSync(`/proc/${pid}/exe`) !== binary) {
      await new Promise((r) => setTimeout(r, 10));
      continue;
    }
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const mask = BigInt(`0x${/SigCgt:\s*([0-9a-f]+)/.exec(status)[1]}`);
    if (mask & bit) {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

function ended(child) {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

describe('npx sjlint', { skip: skip ?? false }, () => {
  before(() => {
    pkg = install();
  });
  after(() => pkg.remove());

  test('is the whole command line: output and exit code as the binary\'s', () => {
    const sample = path.join(REPO, 'testdata/sample-with-problem.ndjson');
    const clean = path.join(REPO, 'testdata/sample.ndjson');
    const cases = [
      [['--version'], ''],
      [['check', '--isolated', sample], ''],
      [['check', '--isolated', '--format', 'json', sample], ''],
      [['check', '--isolated', clean], ''],
      [['check', '--isolated', '--format', 'json', '-'], fs.readFileSync(sample)],
      [['fmt', '--isolated', '--to', 'common', sample], ''],
      [['stats', '--isolated', '--format', 'json', sample], ''],
      [['rules'], ''],
      [['check', '--no-such-option'], ''],
    ];
    const statuses = new Set();
    for (const [args, input] of cases) {
      const got = npx(args, input);
      const want = direct(args, input);
      assert.deepEqual(got, want, args.join(' '));
      statuses.add(got.status);
    }
    // 0 (clean), 1 (findings) and 2 (a usage error) were all passed through.
    assert.deepEqual([...statuses].sort(), [0, 1, 2]);
    assert.match(npx(['--version']).stdout, /^sjlint 0\.1\.0/);
  });

  test('passes SIGTERM on to the binary, which reports and exits 143', { timeout: 60_000 }, async () => {
    const launcher = spawn(path.join(pkg.dir, 'node_modules/.bin/sjlint'), ['check', '--isolated', '-'], {
      cwd: pkg.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const end = ended(launcher);
    let err = '';
    launcher.stderr.on('data', (d) => { err += d; });
    launcher.stdin.write('{"type":"system","subtype":"init","session_id":"s"}\n');
    const child = await childOf(launcher.pid);
    await handles(child, fs.realpathSync(pkg.binary), 'SIGTERM');
    launcher.kill('SIGTERM');
    const { code, signal } = await end;
    assert.equal(signal, null);
    assert.equal(code, 143, err);
  });

  test('ends by the signal that ended the binary', { timeout: 60_000 }, async () => {
    const launcher = spawn(path.join(pkg.dir, 'node_modules/.bin/sjlint'), ['check', '-'], {
      cwd: pkg.dir,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const end = ended(launcher);
    process.kill(await childOf(launcher.pid), 'SIGKILL');
    assert.deepEqual(await end, { code: null, signal: 'SIGKILL' });
  });

  test('names the platform and the packages there are when it has none', () => {
    const bin = path.join(pkg.dir, 'node_modules/sjlint/bin/sjlint.js');
    const r = spawnSync(process.execPath, [
      '-e', `Object.defineProperty(process, 'arch', { value: 's390x' }); require(${JSON.stringify(bin)})`,
      'check',
    ], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no build for linux-s390x-(gnu|musl)/);
    assert.match(r.stderr, /process\.arch s390x/);
    assert.match(r.stderr, /@sjlint\/linux-x64-gnu/);
  });

  test('says so when its platform package is not installed', () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'sjlint-bare-'));
    try {
      fs.cpSync(path.join(pkg.dir, 'node_modules/sjlint'), path.join(bare, 'node_modules/sjlint'), { recursive: true });
      const r = spawnSync(process.execPath, [path.join(bare, 'node_modules/sjlint/bin/sjlint.js'), '--version'], { encoding: 'utf8' });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /@sjlint\/linux-x64-gnu .* is not installed/);
      assert.match(r.stderr, /--omit=optional/);
      const api = spawnSync(process.execPath, ['-e', 'require("sjlint")'], { cwd: bare, encoding: 'utf8' });
      assert.notEqual(api.status, 0);
      assert.match(api.stderr, /is not installed/);
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });
});
