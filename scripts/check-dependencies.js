#!/usr/bin/env node
'use strict';
// The dependency rule of DESIGN.md decision 1 and STYLE.md habit 11, checked on every `npm test`:
// - libs/session is pure: it imports only its own files and zod, and never reads the clock or randomness;
// - libs never import apps, and no lib imports another through a relative path (only via @strata/<lib>).
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const importPattern =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
const impurePattern =
  /\bDate\.now\(|\bnew Date\(\s*\)|\bMath\.random\(|\brandomUUID\(|\bperformance\.now\(|\bprocess\.|\bsetTimeout\(|\bsetInterval\(/;
const sessionAllowedPackages = new Set(['zod']);

function sourceFiles(directory) {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((item) => {
    const full = path.join(directory, item.name);
    if (item.isDirectory()) return sourceFiles(full);
    return item.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(importPattern)].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4]);
}

const violations = [];
const libsDirectory = path.join(root, 'libs');
for (const lib of fs.existsSync(libsDirectory) ? fs.readdirSync(libsDirectory) : []) {
  const libRoot = path.join(libsDirectory, lib);
  for (const file of sourceFiles(libRoot)) {
    const relativeFile = path.relative(root, file);
    const isSpec = /\.(e2e-)?spec\.ts$/.test(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        if (target.startsWith(path.join(root, 'apps')))
          violations.push(`${relativeFile}: a lib imports an app (${specifier})`);
        else if (!target.startsWith(libRoot))
          violations.push(
            `${relativeFile}: reaches into another lib by path (${specifier}); import @strata/<lib>`,
          );
        continue;
      }
      if (lib !== 'session' || isSpec) continue;
      const packageName = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0];
      if (!sessionAllowedPackages.has(packageName)) {
        violations.push(`${relativeFile}: libs/session must stay pure but imports '${specifier}'`);
      }
    }
    if (lib === 'session' && !isSpec) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (impurePattern.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*')) {
          violations.push(
            `${relativeFile}:${index + 1}: libs/session must not read the clock, randomness or the process: ${line.trim()}`,
          );
        }
      });
    }
  }
}

if (violations.length > 0) {
  process.stderr.write(
    `Dependency rule broken (${violations.length}):\n${violations.map((v) => `  - ${v}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write('dependency rule: libs/session is pure and no lib imports an app\n');
