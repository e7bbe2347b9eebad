// The anchor signing key on disk: an Ed25519 private key as PKCS#8 PEM. `STRATA_SIGNING_KEY_FILE`
// names one; without it the key is `signing-key.pem` in the data folder (beside the default SQLite
// file), made on first use with its public key beside it (`signing-key.pub.pem`). A key file is
// read only up to a small bound, and must hold an Ed25519 key.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { anchorKeyIdOf, type AnchorPublicKey, type AnchorSigningKey } from './anchor';

export const SIGNING_KEY_FILE_VARIABLE = 'STRATA_SIGNING_KEY_FILE';
export const DEFAULT_SIGNING_KEY_NAME = 'signing-key.pem';
export const DEFAULT_PUBLIC_KEY_NAME = 'signing-key.pub.pem';
/** Key files larger than this are refused (a PEM Ed25519 key is about 120 bytes). */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

/** A key file that cannot be used; nothing was signed. */
export class SigningKeyError extends Error {
  override readonly name = 'SigningKeyError';
}

/** The file's text, at most `MAX_KEY_FILE_BYTES`; undefined when it does not exist. */
function readSmallFile(path: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SigningKeyError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > MAX_KEY_FILE_BYTES)
        throw new SigningKeyError(`${path} is larger than ${MAX_KEY_FILE_BYTES} bytes: not a key file`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}

function requireEd25519(key: KeyObject, path: string): void {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new SigningKeyError(`${path} holds a ${key.asymmetricKeyType ?? 'symmetric'} key, not Ed25519`);
}

function signingKeyOf(privateKey: KeyObject, path: string): AnchorSigningKey {
  requireEd25519(privateKey, path);
  const publicKey = createPublicKey(privateKey);
  return {
    keyId: anchorKeyIdOf(publicKey),
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A new Ed25519 key pair (in memory only). */
export function generateAnchorSigningKey(): AnchorSigningKey {
  return signingKeyOf(generateKeyPairSync('ed25519').privateKey, '(generated)');
}

/** Reads an Ed25519 private key (PEM); throws `SigningKeyError`. */
export function readSigningKey(path: string): AnchorSigningKey {
  const text = readSmallFile(path);
  if (text === undefined) throw new SigningKeyError(`${path} does not exist`);
  try {
    return signingKeyOf(createPrivateKey(text), path);
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    throw new SigningKeyError(`${path} holds no private key in PEM: ${(error as Error).message}`);
  }
}

/**
 * Reads a public key (SPKI PEM) to check anchors with; a private key file is accepted too (its
 * public half is used). Throws `SigningKeyError`.
 */
export function readPublicKey(path: string): AnchorPublicKey {
  const text = readSmallFile(path);
  if (text === undefined) throw new SigningKeyError(`${path} does not exist`);
  let publicKey: KeyObject;
  try {
    publicKey = text.includes('PRIVATE KEY')
      ? createPublicKey(createPrivateKey(text))
      : createPublicKey(text);
  } catch (error) {
    throw new SigningKeyError(`${path} holds no public key in PEM: ${(error as Error).message}`);
  }
  requireEd25519(publicKey, path);
  return { keyId: anchorKeyIdOf(publicKey), publicKey };
}

/** The files of a comma-separated list (`STRATA_ANCHOR_PUBLIC_KEYS`), blanks dropped. */
export function keyFileList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '');
}

export interface SigningKeyLocation {
  /** The key file named by `STRATA_SIGNING_KEY_FILE` (relative to `cwd`); it must exist. */
  readonly file?: string;
  /** Where the default key lives and is made: `<cwd>/data`. */
  readonly dataDirectory: string;
  readonly cwd?: string;
}

export interface LoadedSigningKey {
  readonly key: AnchorSigningKey;
  /** The private key file. */
  readonly file: string;
  /** Whether it was made just now. */
  readonly created: boolean;
  /** The public key file written beside a key made here (undefined for a key given). */
  readonly publicKeyFile: string | undefined;
}

/** The folder of the engine's default files (`./data`, beside the default SQLite store). */
export function defaultDataDirectory(cwd: string): string {
  return resolve(cwd, 'data');
}

/**
 * The key named by `location.file`, else the one in the data folder, made there (private key
 * readable by its owner only, public key beside it) when there is none yet. Two processes making
 * it at once end with the same key: the file is created exclusively and the loser reads it.
 */
export function loadOrCreateSigningKey(location: SigningKeyLocation): LoadedSigningKey {
  if (location.file !== undefined) {
    const file = resolve(location.cwd ?? process.cwd(), location.file);
    return { key: readSigningKey(file), file, created: false, publicKeyFile: undefined };
  }
  const file = join(location.dataDirectory, DEFAULT_SIGNING_KEY_NAME);
  const publicKeyFile = join(location.dataDirectory, DEFAULT_PUBLIC_KEY_NAME);
  if (readSmallFile(file) !== undefined) {
    return { key: readSigningKey(file), file, created: false, publicKeyFile };
  }
  const key = generateAnchorSigningKey();
  const { privateKey } = key;
  try {
    mkdirSync(location.dataDirectory, { recursive: true });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), {
      mode: 0o600,
      flag: 'wx',
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return { key: readSigningKey(file), file, created: false, publicKeyFile };
    }
    throw new SigningKeyError(`cannot write a new signing key to ${file}: ${(error as Error).message}`);
  }
  writeFileSync(publicKeyFile, key.publicKeyPem, { mode: 0o644 });
  return { key, file, created: true, publicKeyFile };
}

/** `STRATA_ANCHORS`: `on` (the default) signs anchors as sessions are written; `off` signs none. */
export const ANCHORS_VARIABLE = 'STRATA_ANCHORS';

/** Whether anchoring is on for this environment value; throws `SigningKeyError` for another value. */
export function anchorsEnabled(value: string | undefined): boolean {
  const setting = value?.trim().toLowerCase() ?? '';
  if (setting === '' || setting === 'on') return true;
  if (setting === 'off') return false;
  throw new SigningKeyError(`${ANCHORS_VARIABLE} must be on or off, not '${value}'`);
}
