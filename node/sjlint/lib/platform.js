'use strict';
// The platforms sjlint is built for, and finding the one this Node.js runs on: the name of its
// package (`@sjlint/<platform>`), which holds the `sjlint` binary and the addon
// `sjlint.<platform>.node`. This module owns that table and the message given when a platform
// has no package or its package is not installed; it must not run anything.

const fs = require('node:fs');
const path = require('node:path');

// Every platform a release may build: the key is `<process.platform>-<process.arch>[-<libc>]`,
// the package is `@sjlint/<key>`, the target is Rust's (docs/node.md says how a release builds
// each). Only the packages named in this package's optionalDependencies are published.
const PLATFORMS = {
  'linux-x64-gnu': 'x86_64-unknown-linux-gnu',
  'linux-x64-musl': 'x86_64-unknown-linux-musl',
  'linux-arm64-gnu': 'aarch64-unknown-linux-gnu',
  'linux-arm64-musl': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

// glibc or musl, as Node.js itself reports it (a glibc build says which glibc it runs on).
function libc() {
  const report = process.report && process.report.getReport ? process.report.getReport() : null;
  const header = report && (typeof report === 'string' ? JSON.parse(report) : report).header;
  return header && header.glibcVersionRuntime ? 'gnu' : 'musl';
}

function platformKey() {
  const base = `${process.platform}-${process.arch}`;
  return process.platform === 'linux' ? `${base}-${libc()}` : base;
}

// The platform packages this release has (those it names as optional dependencies).
function published() {
  const pkg = require('../package.json');
  return Object.keys(pkg.optionalDependencies || {}).sort();
}

// Where this platform's package is: { key, pkgName, dir }, or an Error that says what is wrong.
function findPackage() {
  const key = platformKey();
  const pkgName = `@sjlint/${key}`;
  const have = published();
  const where = `process.platform ${process.platform}, process.arch ${process.arch}` +
    (process.platform === 'linux' ? `, libc ${key.split('-')[2]}` : '');
  if (!have.includes(pkgName)) {
    return new Error(
      `sjlint has no build for ${key} (${where}). The platform packages of sjlint ` +
      `${require('../package.json').version} are: ${have.join(', ') || 'none'}. ` +
      'Build it from a clone of its source instead (a Rust toolchain is needed): cargo install --path .',
    );
  }
  try {
    return { key, pkgName, dir: path.dirname(require.resolve(`${pkgName}/package.json`)) };
  } catch {
    return new Error(
      `sjlint's package for this platform, ${pkgName} (${where}), is not installed. It is an ` +
      'optional dependency of sjlint: install again without --omit=optional or ' +
      `--no-optional, or add it yourself: npm install ${pkgName}`,
    );
  }
}

// The path of a file of this platform's package, or throws the Error of findPackage.
function fileOf(name) {
  const found = findPackage();
  if (found instanceof Error) {
    throw found;
  }
  const file = path.join(found.dir, name.replace('<key>', found.key));
  if (!fs.existsSync(file)) {
    throw new Error(`${found.pkgName} is installed but holds no ${path.basename(file)} (${file})`);
  }
  return file;
}

module.exports = { PLATFORMS, findPackage, fileOf, platformKey };
