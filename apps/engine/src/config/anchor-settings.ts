// The settings of the engine's signed log (issues 14 and 24, decision 0018), from the environment:
// whether it signs (`STRATA_ANCHORS`), its key (`STRATA_SIGNING_KEY_FILE`, else one made in the data
// folder), the earlier keys verification accepts (`STRATA_ANCHOR_PUBLIC_KEYS`), how often it
// writes a checkpoint (`STRATA_CHECKPOINT_INTERVAL_MS`), and the witnesses every checkpoint is
// handed to (`STRATA_ANCHOR_WITNESS_FILE`, `STRATA_ANCHOR_WITNESS_URL`: https, or plain http to
// the loopback interface only).
import * as path from 'node:path';
import { z } from 'zod';
import { defaultDataDirectory, keyFileList } from '@strata/integrity';
import { choiceVariable, integerVariable, optionalTextVariable } from './environment-values';

export interface AnchorSettings {
  readonly enabled: boolean;
  readonly signingKeyFile: string | undefined;
  /** Where a key is made when none is named. */
  readonly dataDirectory: string;
  /** Public key files of earlier signing keys (after a key rotation). */
  readonly trustedPublicKeyFiles: readonly string[];
  /** Between two checkpoints of the store. */
  readonly checkpointIntervalMs: number;
  readonly witnessFile: string | undefined;
  readonly witnessUrl: string | undefined;
}

/** Why a witness URL cannot be used: not a URL, or plain HTTP to anything but the loopback interface. */
function witnessUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `'${text}' is not a URL`;
  }
  if (url.protocol === 'https:') return undefined;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && loopback) return undefined;
  return 'an https:// URL (plain http:// only to the loopback interface)';
}

const anchorEnvironmentSchema = z.object({
  STRATA_SIGNING_KEY_FILE: optionalTextVariable(),
  STRATA_ANCHOR_PUBLIC_KEYS: optionalTextVariable(),
  STRATA_ANCHORS: choiceVariable(['on', 'off'] as const, 'on'),
  STRATA_CHECKPOINT_INTERVAL_MS: integerVariable({ min: 1_000, max: 86_400_000, default: 10_000 }),
  STRATA_ANCHOR_WITNESS_FILE: optionalTextVariable(),
  STRATA_ANCHOR_WITNESS_URL: optionalTextVariable().superRefine((text, context) => {
    const problem = text === undefined ? undefined : witnessUrlProblem(text);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  }),
});

/** The settings the environment gives, and a problem per variable it gives wrongly (each naming it). */
export function anchorSettingsOf(
  environment: Readonly<Record<string, string | undefined>>,
  cwd: string,
): { readonly settings: AnchorSettings; readonly problems: readonly string[] } {
  const parsed = anchorEnvironmentSchema.safeParse(environment);
  const values = parsed.success ? parsed.data : anchorEnvironmentSchema.parse({});
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
  return {
    settings: {
      enabled: values.STRATA_ANCHORS === 'on',
      signingKeyFile: values.STRATA_SIGNING_KEY_FILE,
      dataDirectory: defaultDataDirectory(cwd),
      trustedPublicKeyFiles: keyFileList(values.STRATA_ANCHOR_PUBLIC_KEYS),
      checkpointIntervalMs: values.STRATA_CHECKPOINT_INTERVAL_MS,
      witnessFile:
        values.STRATA_ANCHOR_WITNESS_FILE === undefined
          ? undefined
          : path.resolve(cwd, values.STRATA_ANCHOR_WITNESS_FILE),
      witnessUrl: values.STRATA_ANCHOR_WITNESS_URL,
    },
    problems,
  };
}
