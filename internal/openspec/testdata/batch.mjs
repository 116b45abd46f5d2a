// batch.mjs runs many invocations of the OpenSpec CLI in one Node process,
// so the parity tests pay Node's and the CLI's start-up (most of a run's
// cost) once per batch instead of once per invocation.
//
//   node batch.mjs OPENSPEC_BIN_JS
//
// Requests arrive on fd 3, one JSON object a line: {"dir", "args", "env"}.
// Each is answered on fd 4, one JSON object a line: {"stdout", "stderr"
// (base64), "code"}. Requests run one at a time (the working directory is
// per process).
//
// Each invocation gets a fresh instance of every module of the OpenSpec
// package (a resolve hook gives them a per-run URL), so no state the CLI
// keeps in its own modules (warnings shown "once per session", telemetry
// ids, caches) carries from one invocation to the next; only its
// third-party dependencies (commander, zod, yaml, chalk, ora) are shared.
// process.exit throws instead of exiting, process.exitCode is read and
// reset, stdout and stderr writes are captured, the working directory and
// the request's environment variables are set for the invocation and
// restored after it. internal/openspec's TestBatchMatchesProcess holds this
// to what separate processes print.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import readline from 'node:readline';

const bin = fs.realpathSync(process.argv[2]);
const pkgDir = path.dirname(path.dirname(bin));
// freshModules lists the modules of the CLI that must be evaluated anew
// for each run: those holding module-level state (a top-level let or var,
// an empty Map, Set or WeakMap, a static field built at run time) and every
// module that imports one of them, directly or not. The rest are loaded
// once and shared.
function freshModules(dist) {
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else if (e.name.endsWith('.js')) {
        files.push(p);
      }
    }
  };
  walk(dist);
  const state = /^(export )?(let|var) |^(export )?const \w+ = new (Map|Set|WeakMap)\(\)|^\s+static \w+ = new /m;
  const importPattern = /(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g;
  const importers = new Map(files.map((f) => [f, new Set()]));
  const stateful = [];
  for (const f of files) {
    const src = fs.readFileSync(f, 'utf8');
    if (state.test(src)) {
      stateful.push(f);
    }
    for (const m of src.matchAll(importPattern)) {
      importers.get(path.resolve(path.dirname(f), m[1]))?.add(f);
    }
  }
  const fresh = new Set(stateful);
  for (const stack = [...stateful]; stack.length > 0;) {
    for (const by of importers.get(stack.pop())) {
      if (!fresh.has(by)) {
        fresh.add(by);
        stack.push(by);
      }
    }
  }
  return fresh;
}

const entry = path.join(pkgDir, 'dist', 'cli', 'index.js');
if (!fs.existsSync(entry) || !/^export (async )?function runCli\(/m.test(fs.readFileSync(entry, 'utf8'))) {
  process.stderr.write(`batch.mjs: ${entry} does not export runCli: this OpenSpec CLI is laid out differently; run the tests with PARITY_BATCH=off\n`);
  process.exit(2);
}
const entryURL = pathToFileURL(entry).href;

register('./batch-hooks.mjs', import.meta.url, { data: { fresh: [...freshModules(path.join(pkgDir, 'dist'))].map((f) => pathToFileURL(f).href) } });

// The CLI's commander is a CommonJS module: the class is shared by every
// run. parse() is made to return parseAsync's promise through `pending`, so
// the run's end (its action and hooks) can be awaited.
const req = createRequire(path.join(pkgDir, 'package.json'));
const { Command } = req('commander');
let pending = null;
Command.prototype.parse = function (argv, opts) {
  pending = this.parseAsync(argv, opts);
  return this;
};

class Exit {
  constructor(code) { this.code = code; }
}
process.exit = (code) => { throw new Exit(code ?? process.exitCode ?? 0); };

let out = [], err = [], capturing = false;
const realOut = process.stdout.write.bind(process.stdout);
const realErr = process.stderr.write.bind(process.stderr);
function capture(sink, real) {
  return function (chunk, encoding, cb) {
    if (!capturing) {
      return real(chunk, encoding, cb);
    }
    if (typeof encoding === 'function') {
      cb = encoding;
      encoding = undefined;
    }
    sink().push(Buffer.isBuffer(chunk) ? Buffer.from(chunk) : Buffer.from(String(chunk), encoding || 'utf8'));
    if (cb) {
      process.nextTick(cb);
    }
    return true;
  };
}
process.stdout.write = capture(() => out, realOut);
process.stderr.write = capture(() => err, realErr);

// An error nobody awaited ends a separate process with status 1 and the
// error on stderr; here it ends the current invocation the same way.
let stray = null;
process.on('unhandledRejection', (e) => { stray = stray ?? e; });
process.on('uncaughtException', (e) => { stray = stray ?? e; });

const tick = () => new Promise((resolve) => setImmediate(resolve));

let run = 0;
async function invoke({ dir, args, env }) {
  run++;
  const saved = {};
  for (const [k, v] of Object.entries(env ?? {})) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  const cwd = process.cwd();
  out = [];
  err = [];
  stray = null;
  pending = null;
  process.exitCode = undefined;
  let code;
  capturing = true;
  try {
    process.chdir(dir);
    const { runCli } = await import(`${entryURL}?run=${run}`);
    runCli(['node', bin, ...args]);
    await pending;
    // Let what the action left scheduled run, as a process would before
    // exiting.
    for (let i = 0; i < 3; i++) {
      await tick();
    }
  } catch (e) {
    if (e instanceof Exit) {
      code = e.code;
    } else {
      stray = stray ?? e;
    }
  } finally {
    capturing = false;
    process.chdir(cwd);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) {
        delete process.env[k];
      } else {
        process.env[k] = v;
      }
    }
  }
  if (stray && !(stray instanceof Exit)) {
    err.push(Buffer.from(`${stray?.stack ?? stray}\n`));
    code = code ?? 1;
  } else if (stray instanceof Exit) {
    code = code ?? stray.code;
  }
  code = code ?? process.exitCode ?? 0;
  process.exitCode = undefined;
  return {
    stdout: Buffer.concat(out).toString('base64'),
    stderr: Buffer.concat(err).toString('base64'),
    code: Number(code),
  };
}

const answers = fs.createWriteStream(null, { fd: 4 });
const requests = readline.createInterface({ input: fs.createReadStream(null, { fd: 3 }), crlfDelay: Infinity });
for await (const line of requests) {
  if (line.trim() === '') {
    continue;
  }
  const answer = await invoke(JSON.parse(line));
  await new Promise((resolve, reject) => answers.write(JSON.stringify(answer) + '\n', (e) => (e ? reject(e) : resolve())));
}
answers.end();
