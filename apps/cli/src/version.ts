// The version `strata --version` prints: the `version` of the repository's package.json, found by
// walking up from this module, so it stays right wherever the CLI's code is run from.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

const packageManifest = z.object({ name: z.string(), version: z.string() });

export function strataVersion(from: string = __dirname): string {
  for (let directory = from; ; directory = dirname(directory)) {
    const file = join(directory, 'package.json');
    if (existsSync(file)) {
      const manifest = packageManifest.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (manifest.success && manifest.data.name === 'strata') return manifest.data.version;
    }
    if (dirname(directory) === directory) return 'unknown';
  }
}
