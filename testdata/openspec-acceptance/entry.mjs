// The OpenSpec CLI entry (dist/cli/index.js) of the acceptance suite's
// jj-openspec run: the OpenSpec verbs jj-openspec implements go to it
// ($JJ_OPENSPEC, argv as it is, stdio inherited, its exit code kept);
// every other invocation runs the real CLI's entry, moved to
// real-index.js beside this file. Written by TestOpenSpecAcceptance.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NATIVE = new Set(['list', 'status', 'validate', 'archive', 'show', 'init', 'instructions']);

export async function runCli(argv = process.argv) {
  const args = argv.slice(2);
  const verb = args.find((a) => !a.startsWith('-'));
  // `new change ...` is OpenSpec's new change in jj-openspec too; any
  // other `new` (its help included) is jj-openspec's own authoring verb.
  const newChange = verb === 'new' && args[args.indexOf('new') + 1] === 'change';
  if (verb !== undefined && (NATIVE.has(verb) || newChange)) {
    const r = spawnSync(process.env.JJ_OPENSPEC, args, { stdio: 'inherit' });
    if (r.error) {
      console.error(`acceptance entry: cannot run ${process.env.JJ_OPENSPEC}: ${r.error.message}`);
      process.exit(127);
    }
    process.exit(r.status ?? 1);
  }
  const real = await import('./real-index.js');
  real.runCli(argv);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCli();
}
