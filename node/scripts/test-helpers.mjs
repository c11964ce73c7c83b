// What the tests of the npm packages share: the packed tarballs (node/dist/, made by
// node/build.sh, or $SJLINT_NPM_DIST) installed offline into a fresh temporary project, as a
// user installs them; the transcripts to compare on (testdata/agents/*/ and, beside the clone,
// ../shared/corpus); and the binary of the installed platform package, run as the command line.
// Without the tarballs or the corpus, the tests that need them are skipped with a message,
// except under CI=true, where they fail.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS = path.resolve(REPO, '../shared/corpus');
export const IN_CI = process.env.CI === 'true';
const DIST = process.env.SJLINT_NPM_DIST ?? path.join(REPO, 'node/dist');

function tarballs() {
  const main = path.join(DIST, 'sjlint-0.1.0.tgz');
  const platform = path.join(DIST, 'sjlint-linux-x64-gnu-0.1.0.tgz');
  return fs.existsSync(main) && fs.existsSync(platform) ? [main, platform] : null;
}

// Why the packages cannot be tested here, or null (under CI=true: an Error instead).
export function missing() {
  if (tarballs()) {
    return null;
  }
  const why = `no packed tarballs in ${DIST}: run node/build.sh (or set SJLINT_NPM_DIST)`;
  if (IN_CI) {
    throw new Error(`${why} (required when CI=true)`);
  }
  return why;
}

// The packages installed into a fresh temporary project, with no registry.
export function install() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sjlint-npm-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"sjlint-test","private":true}\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs()], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const require = createRequire(path.join(dir, 'index.js'));
  return {
    dir,
    sjlint: require('sjlint'),
    binary: path.join(dir, 'node_modules/@sjlint/linux-x64-gnu/bin/sjlint'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function filesUnder(dir, keep) {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => path.join(e.parentPath ?? e.path, e.name))
    .sort();
}

// Every transcript of testdata/agents/*/ (the agents' fixtures), as paths from the repository.
export function fixtures() {
  const root = path.join(REPO, 'testdata/agents');
  return fs.readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => filesUnder(path.join(root, e.name), (n) => /\.(ndjson|jsonl)$/.test(n)))
    .map((p) => path.relative(REPO, p));
}

// The real captures of ../shared/corpus (absolute paths), or [] with the reason said once.
export function corpus() {
  if (!fs.existsSync(CORPUS)) {
    if (IN_CI) {
      throw new Error(`${CORPUS} is absent (required when CI=true)`);
    }
    console.log(`# ${CORPUS} is absent: the corpus comparisons did not run`);
    return [];
  }
  return filesUnder(CORPUS, (n) => /\.(ndjson|jsonl|json|log)$/.test(n));
}

// The command line run from the repository's root (no configuration file: --isolated where
// the command takes it): { status, stdout, stderr }.
export function cli(binary, args, input = '') {
  const r = spawnSync(binary, args, { cwd: REPO, input, maxBuffer: 1 << 30 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr.toString() };
}

// Its JSON output, read (exit 0, 1 or 4: the command ran).
export function cliJson(binary, args, input) {
  const r = cli(binary, args, input);
  if (![0, 1, 4].includes(r.status)) {
    throw new Error(`sjlint ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout);
}

// Its JSON lines output, each read.
export function cliLines(binary, args, input) {
  const r = cli(binary, args, input);
  if (r.status === 2 && r.stderr.includes('no agent sjlint knows wrote this stream')) {
    // The command line says there is no common form; the library gives no event.
    return [];
  }
  if (![0, 1, 4].includes(r.status)) {
    throw new Error(`sjlint ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  }
  return r.stdout.toString().split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}
