#!/usr/bin/env node
// Writes node/sjlint/index.d.ts: the types of the finding (schemas/diagnostic.schema.json), of
// the common event (schemas/common.schema.json) and of the statistics
// (schemas/stats.schema.json), made from the schemas, then the declarations of the package's
// calls. `--check` writes nothing and fails when the file differs from what the schemas make
// now (a schema changed and the types were not made again).
//
// It reads the subset of JSON Schema these schemas use: type (one or several), enum, const,
// properties with required, items, $ref to $defs (with properties beside it: an
// intersection), and {} (unknown). Anything else stops it, so that a new construct in a
// schema is noticed rather than typed wrongly.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const out = path.join(repo, 'node/sjlint/index.d.ts');

// Each schema, the name of its type, and the prefix of the names of its $defs.
const SCHEMAS = [
  { file: 'diagnostic', name: 'Finding' },
  { file: 'common', name: 'CommonEvent' },
  { file: 'stats', name: 'Stats' },
];

const KNOWN = new Set([
  '$schema', '$id', 'title', 'description', 'type', 'enum', 'const', 'properties', 'required',
  'additionalProperties', 'unevaluatedProperties', 'items', '$ref', '$defs', 'minimum',
]);

const pascal = (s) => s.replace(/(^|[-_])(\w)/g, (_, __, c) => c.toUpperCase());

function doc(text, indent) {
  if (!text) {
    return '';
  }
  const body = text.replace(/\*\//g, '*\\/');
  return `${indent}/** ${body} */\n`;
}

function typeOf(schema, ctx, indent) {
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) {
      throw new Error(`${ctx.file}.schema.json: the generator does not read "${key}"`);
    }
  }
  const parts = [];
  if (schema.$ref) {
    const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    if (!m) {
      throw new Error(`${ctx.file}.schema.json: a $ref outside $defs: ${schema.$ref}`);
    }
    parts.push(ctx.name + pascal(m[1]));
  }
  if ('const' in schema) {
    return JSON.stringify(schema.const);
  }
  if (schema.enum) {
    return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  }
  if (schema.properties) {
    parts.push(objectOf(schema, ctx, indent));
    return parts.join(' & ');
  }
  if (parts.length) {
    return parts[0];
  }
  if (schema.type === undefined) {
    return 'unknown';
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.map((t) => {
    switch (t) {
      case 'integer':
      case 'number':
        return 'number';
      case 'string':
      case 'boolean':
      case 'null':
        return t;
      case 'array':
        return schema.items ? `Array<${typeOf(schema.items, ctx, indent)}>` : 'unknown[]';
      case 'object':
        return 'Record<string, unknown>';
      default:
        throw new Error(`${ctx.file}.schema.json: no type ${t}`);
    }
  }).join(' | ');
}

function objectOf(schema, ctx, indent) {
  const required = new Set(schema.required || []);
  const inner = `${indent}  `;
  const fields = Object.entries(schema.properties).map(([key, prop]) => {
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    const opt = required.has(key) ? '' : '?';
    return `${doc(prop.description, inner)}${inner}${name}${opt}: ${typeOf(prop, ctx, inner)};\n`;
  });
  return `{\n${fields.join('')}${indent}}`;
}

// A bundled schema's text.
export function readSchema(file) {
  return fs.readFileSync(path.join(repo, 'schemas', `${file}.schema.json`), 'utf8');
}

function typesOf({ file, name }, read) {
  const schema = JSON.parse(read(file));
  const ctx = { file, name };
  let text = `// From schemas/${file}.schema.json.\n`;
  text += doc(schema.description, '');
  text += `export type ${name} = ${typeOf({ ...schema, $defs: undefined, description: undefined }, ctx, '')};\n`;
  for (const [def, sub] of Object.entries(schema.$defs || {})) {
    text += doc(sub.description, '');
    text += `export type ${name}${pascal(def)} = ${typeOf(sub, ctx, '')};\n`;
  }
  return text;
}

const API = `
// The calls of the package (node/sjlint/index.js).

/** A transcript: its bytes (a Buffer or Uint8Array), or the path of one file (a string or a file: URL). */
export type Source = string | URL | Uint8Array;

/** One file of \`sjlint stats --format json\`: what \`stats()\` returns. */
export type FileStats = Stats["files"][number];

/** The options of \`check\`, as the command line's options of the same names. No configuration file is read (as \`--isolated\`). */
export interface CheckOptions {
  /** \`--agent\`: the agent that wrote the stream ("claude", "codex", …), or "auto". */
  agent?: string;
  /** \`--select\`: only these rules and groups. */
  select?: string | string[];
  /** \`--ignore\`: leave these rules and groups out. */
  ignore?: string | string[];
  /** \`--severity RULE=LEVEL\`: a rule's or group's level ("error", "warning", "info" or "off"). */
  severity?: Record<string, "error" | "warning" | "info" | "off">;
  /** Stop at this many findings. */
  limit?: number;
}

/** The options of \`toCommon\` and \`stats\`. */
export interface AgentOptions {
  /** \`--agent\`: the agent that wrote the stream, or "auto". */
  agent?: string;
}

/** The options of a \`Stream\`. */
export interface StreamOptions extends Omit<CheckOptions, "limit"> {
  /** Make the common events too (default true); false gives the findings only, faster. */
  events?: boolean;
}

/** What \`check\` returns. */
export interface CheckResult {
  /** The findings, as \`sjlint check --format json\` writes them ("file" is "-" for bytes). */
  findings: Finding[];
  /** Records read (blank lines are none). */
  records: number;
  /** Bytes read. */
  bytes: number;
  /** The agent the input was checked as, or null (none sjlint knows, an empty input, a check stopped early). */
  agent: string | null;
}

/** One rule, as \`sjlint rules\` lists it. */
export interface Rule {
  name: Finding["rule"];
  group: Finding["group"];
  /** Its default severity. */
  severity: Finding["severity"];
  summary: string;
}

/** What a \`Stream\` hands out: a finding (it has \`rule\`) or a common event (it has \`type\`). */
export type StreamItem = Finding | CommonEvent;

/** The findings of one transcript, in the order \`sjlint check\` reports them. Throws a TypeError for an argument of the wrong type, an Error for a bad option or a file that cannot be read. */
export function check(source: Source, options?: CheckOptions): CheckResult;
/** \`check\` on a thread of libuv's pool: the event loop is not blocked. */
export function checkAsync(source: Source, options?: CheckOptions): Promise<CheckResult>;
/** The lines of \`sjlint fmt --to common\`, as objects. */
export function toCommon(source: Source, options?: AgentOptions): CommonEvent[];
/** \`toCommon\` on a thread of libuv's pool. */
export function toCommonAsync(source: Source, options?: AgentOptions): Promise<CommonEvent[]>;
/** One file of \`sjlint stats --format json\`. */
export function stats(source: Source, options?: AgentOptions): FileStats;
/** \`stats\` on a thread of libuv's pool. */
export function statsAsync(source: Source, options?: AgentOptions): Promise<FileStats>;
/** Every rule, in the order of \`sjlint rules\`. */
export function rules(): Rule[];
/** Whether an item of a Stream is a finding. */
export function isFinding(item: StreamItem): item is Finding;

/** A transcript checked as it arrives, cut anywhere: fed in pieces of any size, it gives the same items as fed at once. */
export class Stream {
  constructor(options?: StreamOptions);
  /** The findings and events the bytes so far make known, in the transcript's order. Throws once finished. */
  feed(chunk: Uint8Array | string): StreamItem[];
  /** The last findings and events (the end of the input may break the last record, and ends open calls). Throws once finished. */
  finish(): StreamItem[];
  readonly finished: boolean;
  /** Records read, once finished (else null). */
  records: number | null;
  /** Bytes read, once finished (else null). */
  bytes: number | null;
  /** The agent the stream was checked as, once finished (else null). */
  agent: string | null;
}

/** The version of sjlint. */
export const version: string;
`;

/** index.d.ts as the schemas `read(name)` gives make it. */
export function generate(read = readSchema) {
  const head = '// Generated by node/scripts/gen-types.mjs from schemas/*.schema.json: do not edit by hand.\n';
  return head + SCHEMAS.map((s) => `\n${typesOf(s, read)}`).join('') + API;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = generate();
  if (process.argv.includes('--check')) {
    if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== text) {
      console.error(`${path.relative(process.cwd(), out)} is not what the schemas make: run node node/scripts/gen-types.mjs`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(out, text);
  }
}
