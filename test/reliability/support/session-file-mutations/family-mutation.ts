// The named families of hostile mutation a session file can undergo, and the shape every
// family's generator draws: the family's name with a function that damages the file's lines.
import type { FileLine } from './file-lines';

export const hostileFamilies = [
  'huge-payload',
  'deep-nesting',
  'wrong-type',
  'invalid-utf8',
  'unknown-type',
  'parent-cycle',
  'duplicate-id',
  'truncated-line',
  'random-json',
  'random-text',
  'bad-header',
  'prototype-keys',
  'escaped-oddities',
  'unaddressable-id',
  'bad-timestamp',
  'usage-out-of-bounds',
  'stray-first-kept',
] as const;

export type HostileFamily = (typeof hostileFamilies)[number];

/** A mutation of the file's lines (already JSON objects where they parse). */
type Mutation = (lines: FileLine[]) => void;

export interface FamilyMutation {
  readonly family: HostileFamily;
  readonly mutate: Mutation;
}
