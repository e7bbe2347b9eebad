import { anchorSettingsOf } from './anchor-settings';

describe('anchorSettingsOf', () => {
  it('defaults to signing, a checkpoint every 10 s and no witness', () => {
    expect(anchorSettingsOf({}, '/srv')).toEqual({
      settings: expect.objectContaining({
        enabled: true,
        checkpointIntervalMs: 10_000,
        witnessFile: undefined,
        witnessUrl: undefined,
        dataDirectory: '/srv/data',
      }),
      problems: [],
    });
  });

  it('resolves a witness file against the working directory', () => {
    expect(
      anchorSettingsOf({ STRATA_ANCHOR_WITNESS_FILE: 'w/witness.jsonl' }, '/srv').settings.witnessFile,
    ).toBe('/srv/w/witness.jsonl');
  });

  it('takes an https witness, and plain http only to the loopback interface', () => {
    for (const url of [
      'https://witness.example/checkpoints',
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://[::1]:8/x',
    ]) {
      expect(anchorSettingsOf({ STRATA_ANCHOR_WITNESS_URL: url }, '/srv').problems).toEqual([]);
    }
    expect(
      anchorSettingsOf({ STRATA_ANCHOR_WITNESS_URL: 'http://witness.example/x' }, '/srv').problems,
    ).toEqual(['STRATA_ANCHOR_WITNESS_URL: an https:// URL (plain http:// only to the loopback interface)']);
    expect(anchorSettingsOf({ STRATA_ANCHOR_WITNESS_URL: 'not a url' }, '/srv').problems).toEqual([
      "STRATA_ANCHOR_WITNESS_URL: 'not a url' is not a URL",
    ]);
  });

  it('names a checkpoint interval out of its range', () => {
    expect(anchorSettingsOf({ STRATA_CHECKPOINT_INTERVAL_MS: '10' }, '/srv').problems).toEqual([
      expect.stringContaining('STRATA_CHECKPOINT_INTERVAL_MS'),
    ]);
  });
});
