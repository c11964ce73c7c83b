// index.d.ts is what the schemas make (node/scripts/gen-types.mjs), so that a schema changed
// without the types made again fails here; and a TypeScript example type-checks against it
// (`tsc --noEmit --strict`, with the typescript of node/package.json once `npm ci` put it in
// node/node_modules).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { generate, readSchema } from '../scripts/gen-types.mjs';
import { IN_CI, REPO } from '../scripts/test-helpers.mjs';

const DTS = path.join(REPO, 'node/sjlint/index.d.ts');

test('index.d.ts is what the schemas make now', () => {
  assert.equal(fs.readFileSync(DTS, 'utf8'), generate(),
    'a schema changed: run `node node/scripts/gen-types.mjs` and commit node/sjlint/index.d.ts');
});

test('a change of a schema changes the types', () => {
  const changed = (file) => {
    const text = readSchema(file);
    return file === 'diagnostic' ? text.replace('"token-total-drop"', '"token-total-drop", "a-new-rule"') : text;
  };
  const text = generate(changed);
  assert.notEqual(text, generate());
  assert.match(text, /\| "token-total-drop" \| "a-new-rule";/);
  // The common event's and the statistics' fields are there, optional where the schema says.
  assert.match(generate(), /export type CommonEvent = \{\n[^]*?\n  type: "session_start" \|[^]*?\n  call_id\?: string;/);
  assert.match(generate(), /export type StatsStats = \{\n[^]*?\n  records: StatsCount;/);
});

const tsc = path.join(REPO, 'node/node_modules/typescript/bin/tsc');
const noTsc = fs.existsSync(tsc) ? false : 'no typescript in node/node_modules: run `npm ci --prefix node`';
if (noTsc && IN_CI) {
  throw new Error(`${noTsc} (required when CI=true)`);
}

test('the TypeScript example type-checks (tsc --noEmit --strict)', { skip: noTsc }, () => {
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(REPO, 'node/tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
