#!/usr/bin/env node
// Times `check` through the addon against the command line on one file: the packed tarballs
// of node/dist/ (node/build.sh, release builds) installed offline into a fresh project, then
// RUNS runs of each, alternated, and the median of each. Speed is measured by hand, not
// asserted by a test: docs/node.md keeps the numbers and the machine.
//
//   node node/scripts/bench.mjs FILE [RUNS]

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { install } from './test-helpers.mjs';

const [file, runsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node node/scripts/bench.mjs FILE [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg ?? 7);
const size = fs.statSync(file).size;
const pkg = install();
const { sjlint } = pkg;

function seconds(f) {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

async function secondsAsync(f) {
  const t = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const bytes = fs.readFileSync(file);
const ways = {
  'sjlint check --isolated FILE (the binary, process start included)': () => {
    const r = spawnSync(pkg.binary, ['check', '--isolated', '--format', 'json', file], { stdio: ['ignore', 'ignore', 'ignore'] });
    if (r.status !== 0 && r.status !== 1) {
      throw new Error(`sjlint exited ${r.status}`);
    }
  },
  'check(path), reading the file included': () => sjlint.check(file),
  'check(buffer), the bytes in memory': () => sjlint.check(bytes),
  'checkAsync(path)': () => sjlint.checkAsync(file),
  'Stream({ events: false }) fed 64 KiB pieces': () => {
    const s = new sjlint.Stream({ events: false });
    for (let at = 0; at < bytes.length; at += 65536) {
      s.feed(bytes.subarray(at, at + 65536));
    }
    s.finish();
  },
};

const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, f] of Object.entries(ways)) {
    times[name].push(name.includes('Async') ? await secondsAsync(f) : seconds(f));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${file}: ${(size / 1e6).toFixed(1)} MB, ${runs} runs each, median`);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(`| ${name} | ${m.toFixed(3)} s | ${(size / 1e6 / m).toFixed(0)} MB/s |`);
}
pkg.remove();
