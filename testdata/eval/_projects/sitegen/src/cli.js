import { build } from './build.js';
import { SiteError } from './errors.js';

const USAGE = 'usage: sitegen build [DIR]';

// main runs the command line; returns the exit code.
export function main(args, { out = process.stdout, err = process.stderr } = {}) {
  const [cmd, dir = '.', ...rest] = args;
  if (cmd !== 'build' || rest.length > 0) {
    err.write(USAGE + '\n');
    return 2;
  }
  try {
    const written = build(dir);
    out.write(`wrote ${written.length} files\n`);
    return 0;
  } catch (e) {
    if (e instanceof SiteError || e.code === 'ENOENT') {
      err.write(`sitegen: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
