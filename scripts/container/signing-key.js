#!/usr/bin/env node
'use strict';
// Makes the anchor signing key that several engines share (README, "Several engines on one
// store"), once: docker-compose.cluster.yml runs it before its engines start, into a volume they
// all mount. The key is made as the engine makes its own (Ed25519, PKCS#8 PEM readable by its
// owner only, the public key beside it, by the built engine's own code in dist/); a key already
// there is kept. Prints the key's file and whether it was made now.
//   node scripts/container/signing-key.js <directory>
const path = require('node:path');

const directory = process.argv[2];
if (directory === undefined) {
  process.stderr.write('usage: node scripts/container/signing-key.js <directory>\n');
  process.exit(2);
}
const { loadOrCreateSigningKey } = require(
  path.join(__dirname, '..', '..', 'dist', 'libs', 'integrity', 'src', 'index.js'),
);
try {
  const loaded = loadOrCreateSigningKey({ dataDirectory: path.resolve(directory) });
  process.stdout.write(`${loaded.created ? 'made' : 'kept'} ${loaded.file} (key ${loaded.key.keyId})\n`);
} catch (error) {
  process.stderr.write(`signing-key: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
