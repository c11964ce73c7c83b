#!/usr/bin/env node
'use strict';
// `sjlint` from npm: runs the binary of this platform's package with the arguments given,
// standard input, output and error shared, and ends as it ends (its exit code, or the signal
// that ended it). SIGTERM sent to this process is passed on to the binary; SIGINT, SIGQUIT
// and SIGHUP from a terminal reach the binary by themselves (it is in the same process group),
// so this process only waits for it to end.

const { spawn } = require('node:child_process');
const os = require('node:os');
const { fileOf } = require('../lib/platform.js');

let binary;
try {
  binary = fileOf('bin/sjlint');
} catch (e) {
  process.stderr.write(`sjlint: ${e.message}\n`);
  process.exit(2);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
const passed = { SIGTERM: true, SIGINT: false, SIGQUIT: false, SIGHUP: false };
const handlers = {};
for (const [signal, pass] of Object.entries(passed)) {
  handlers[signal] = () => {
    if (pass) {
      child.kill(signal);
    }
  };
  process.on(signal, handlers[signal]);
}

child.on('error', (e) => {
  process.stderr.write(`sjlint: cannot run ${binary}: ${e.message}\n`);
  process.exit(2);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // End by the same signal, as a shell would see the binary end.
    for (const [s, h] of Object.entries(handlers)) {
      process.removeListener(s, h);
    }
    process.kill(process.pid, signal);
    // A signal this process cannot die of: the shell's way of saying it.
    setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 100);
    return;
  }
  process.exit(code);
});
