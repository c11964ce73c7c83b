'use strict';
// sjlint from Node.js: check, normalize and measure the JSON event streams of AI coding-agent
// CLIs, in the same compiled code as the `sjlint` command line (the addon of this platform's
// package), with no process started.
//
// This module owns the JavaScript face of the library: what a source is (a Buffer or
// Uint8Array of the stream, or the path of one file), the options as objects, the checks of
// arguments (a TypeError for a wrong type), and reading the addon's JSON text into plain
// objects: each finding as one element of `sjlint check --format json`, each event as its line
// of `sjlint fmt --to common`, the statistics as one file of `sjlint stats --format json`. It
// must not re-implement a rule or change a value the command line would write.

const fs = require('node:fs');
const { fileURLToPath } = require('node:url');
const { fileOf } = require('./lib/platform.js');

const native = require(fileOf('sjlint.<key>.node'));

// The name `file` takes for bytes given directly, as the command line names its stdin.
const STDIN = '-';

function describe(value) {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  return typeof value === 'object' ? `an object (${value.constructor?.name ?? 'Object'})` : `a ${typeof value}`;
}

// The path of a string or file: URL source, or null when the source is bytes.
function pathOf(source, call) {
  if (typeof source === 'string') {
    return source;
  }
  if (source instanceof URL) {
    return fileURLToPath(source);
  }
  if (source instanceof Uint8Array) {
    return null;
  }
  throw new TypeError(
    `${call}: the source is a Buffer or Uint8Array (the stream itself) or a string or file: ` +
    `URL (the path of a file), not ${describe(source)}`,
  );
}

function bytesOf(source) {
  return Buffer.isBuffer(source) ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
}

// A file opened for the addon, which maps it (as the command line does) or reads it. One byte
// is read first, so that what cannot be read (a directory: EISDIR) throws fs's own error.
function open(path) {
  const fd = fs.openSync(path, 'r');
  try {
    fs.readSync(fd, Buffer.alloc(1), 0, 1, 0);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  return fd;
}

function names(value, what, call) {
  if (value === undefined || value === null) {
    return undefined;
  }
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((n) => typeof n !== 'string')) {
    throw new TypeError(`${call}: ${what} takes a rule or group name or an array of them, not ${describe(value)}`);
  }
  return list;
}

const TAKES = {
  check: ['agent', 'select', 'ignore', 'severity', 'limit'],
  Stream: ['agent', 'select', 'ignore', 'severity', 'events'],
  toCommon: ['agent'],
  stats: ['agent'],
};

// The addon's options from a call's, each checked for its type (the addon checks the values).
function nativeOptions(options, call) {
  if (options === undefined || options === null) {
    return undefined;
  }
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${call}: options is an object, not ${describe(options)}`);
  }
  const takes = TAKES[call.replace(/Async$/, '')];
  for (const key of Object.keys(options)) {
    if (!takes.includes(key)) {
      throw new TypeError(`${call}: no option ${JSON.stringify(key)} (it takes ${takes.join(', ')})`);
    }
  }
  const { agent, severity, limit } = options;
  if (agent !== undefined && agent !== null && typeof agent !== 'string') {
    throw new TypeError(`${call}: agent is a string (an agent's name, or "auto"), not ${describe(agent)}`);
  }
  if (limit !== undefined && limit !== null && !(Number.isInteger(limit) && limit >= 0 && limit <= 0xffffffff)) {
    throw new TypeError(`${call}: limit is a number of findings, a whole number from 0, not ${String(limit)}`);
  }
  let levels;
  if (severity !== undefined && severity !== null) {
    if (typeof severity !== 'object' || Array.isArray(severity)) {
      throw new TypeError(`${call}: severity is an object of rule -> level, e.g. { "thinking-empty": "error" }`);
    }
    levels = Object.entries(severity).map(([rule, level]) => {
      if (typeof level !== 'string') {
        throw new TypeError(`${call}: the level of ${rule} is a string (error, warning, info or off), not ${describe(level)}`);
      }
      return { rule, level };
    });
  }
  return {
    agent: agent ?? undefined,
    select: names(options.select, 'select', call),
    ignore: names(options.ignore, 'ignore', call),
    severity: levels,
    limit: limit ?? undefined,
  };
}

// The addon's argument `name` for a call: check puts the file's name into JSON text itself.
function nameFor(kind, file) {
  return kind === 'check' ? JSON.stringify(file) : file;
}

function call(kind, name, source, options) {
  const opts = nativeOptions(options, name);
  const path = pathOf(source, name);
  if (path === null) {
    return JSON.parse(native.run(kind, bytesOf(source), nameFor(kind, STDIN), opts));
  }
  const fd = open(path);
  try {
    return JSON.parse(native.runFile(kind, fd, nameFor(kind, path), opts));
  } finally {
    fs.closeSync(fd);
  }
}

// The same without blocking the event loop: the file is opened with fs.promises, and the
// addon works on a thread of libuv's pool.
async function callAsync(kind, name, source, options) {
  const opts = nativeOptions(options, name);
  const path = pathOf(source, name);
  if (path === null) {
    return JSON.parse(await native.runAsync(kind, bytesOf(source), nameFor(kind, STDIN), opts));
  }
  const handle = await fs.promises.open(path, 'r');
  try {
    await handle.read(Buffer.alloc(1), 0, 1, 0);
    return JSON.parse(await native.runFileAsync(kind, handle.fd, nameFor(kind, path), opts));
  } finally {
    await handle.close();
  }
}

/** The findings of one transcript and what it held: { findings, records, bytes, agent }. */
function check(source, options) {
  return call('check', 'check', source, options);
}

function checkAsync(source, options) {
  return callAsync('check', 'checkAsync', source, options);
}

/** The transcript in the common form: the lines of `sjlint fmt --to common` as objects. */
function toCommon(source, options) {
  return call('common', 'toCommon', source, options);
}

function toCommonAsync(source, options) {
  return callAsync('common', 'toCommonAsync', source, options);
}

/** One file of `sjlint stats --format json`. */
function stats(source, options) {
  return call('stats', 'stats', source, options);
}

function statsAsync(source, options) {
  return callAsync('stats', 'statsAsync', source, options);
}

/** Every rule as `sjlint rules` lists it: name, group, default severity, summary. */
function rules() {
  return native.rules().map(({ name, group, severity, summary }) => ({ name, group, severity, summary }));
}

/** Whether an item of a Stream is a finding (else it is a common event). */
function isFinding(item) {
  return item !== null && typeof item === 'object' && typeof item.rule === 'string' && !('type' in item);
}

/** A transcript checked as it arrives, in pieces of any size. */
class Stream {
  #inner;

  constructor(options) {
    const opts = nativeOptions(options, 'Stream');
    const events = options?.events ?? true;
    if (typeof events !== 'boolean') {
      throw new TypeError(`Stream: events is a boolean, not ${describe(events)}`);
    }
    this.#inner = new native.NativeStream(opts, events);
    this.records = null;
    this.bytes = null;
    this.agent = null;
  }

  /** The findings and events the bytes so far make known, in the transcript's order. */
  feed(chunk) {
    let data;
    if (typeof chunk === 'string') {
      data = Buffer.from(chunk, 'utf8');
    } else if (chunk instanceof Uint8Array) {
      data = bytesOf(chunk);
    } else {
      throw new TypeError(`Stream.feed takes a Buffer, Uint8Array or string, not ${describe(chunk)}`);
    }
    return JSON.parse(this.#inner.feed(data));
  }

  /** The last findings and events; `records`, `bytes` and `agent` then hold the totals. */
  finish() {
    const done = JSON.parse(this.#inner.finish());
    this.records = done.records;
    this.bytes = done.bytes;
    this.agent = done.agent;
    return done.items;
  }

  get finished() {
    return this.#inner.finished;
  }
}

module.exports = {
  check,
  checkAsync,
  toCommon,
  toCommonAsync,
  stats,
  statsAsync,
  rules,
  isFinding,
  Stream,
  version: native.VERSION,
};
