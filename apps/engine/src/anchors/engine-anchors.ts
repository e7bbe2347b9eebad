// The engine's signed anchors (issue 14): its signing key (`STRATA_SIGNING_KEY_FILE`, else made in
// the data folder on first start), the anchor log of its store, and the scheduler that signs the
// head of every session stream the engine appends to — appends, labels, commands, compactions,
// imports — at most once per session per second, the latest head of a burst always, and whatever
// is held when the engine stops. `STRATA_ANCHORS=off` signs nothing (the key is still loaded, so
// the public key is served and verification works). Verification accepts anchors of the engine's
// key and of the earlier keys named by `STRATA_ANCHOR_PUBLIC_KEYS` (a rotated key's anchors).
import { Logger } from '@nestjs/common';
import { type AppendResult, type EventStore, type EventToAppend } from '@strata/event-store';
import {
  AnchorIndex,
  AnchorScheduler,
  CheckpointScheduler,
  FileWitness,
  UrlWitness,
  type CheckpointLogEntry,
  type ErasureSigner,
  type Witness,
  anchorLogCandidates,
  SigningKeyError,
  anchorLogIfAny,
  loadOrCreateSigningKey,
  readPublicKey,
  type AnchorLog,
  type AnchorPublicKey,
  type AnchorQuery,
  type AnchorSigningKey,
} from '@strata/integrity';
import { resolve } from 'node:path';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { ConfigurationError, type EngineConfig } from '../config/engine-config';

export interface EngineAnchorsOptions {
  /** The shortest time between two anchors of one session; 1,000 ms by default. */
  readonly intervalMs?: number;
  /** Between two checkpoints; `STRATA_CHECKPOINT_INTERVAL_MS` by default. */
  readonly checkpointIntervalMs?: number;
  readonly clock?: () => Date;
}

export class EngineAnchors {
  private readonly logger = new Logger('Anchors');
  readonly key: AnchorSigningKey;
  /** The private key file, and whether it was made at this start. */
  readonly keyFile: string;
  readonly keyCreated: boolean;
  /** The keys whose anchors verification accepts: the engine's, then the earlier ones given. */
  readonly trustedKeys: ReadonlyMap<string, AnchorPublicKey>;
  /** Undefined for a store that keeps no anchor log (a store given by an embedder). */
  readonly log: AnchorLog | undefined;
  readonly scheduler: AnchorScheduler | undefined;
  /** Writes the store's checkpoints into its signed log (decision 0018), when anchoring is on. */
  readonly checkpoints: CheckpointScheduler | undefined;
  /** Signs erasures before they are carried out, when anchoring is on. */
  readonly erasureSigner: ErasureSigner | undefined;
  private readonly witnesses: readonly Witness[];
  /** Anchors written since start (metrics, tests). */
  written = 0;

  /** Throws `ConfigurationError` for a key that cannot be read or made. */
  constructor(config: EngineConfig, store: EventStore, options: EngineAnchorsOptions = {}) {
    try {
      const loaded = loadOrCreateSigningKey({
        ...(config.anchors.signingKeyFile !== undefined ? { file: config.anchors.signingKeyFile } : {}),
        dataDirectory: config.anchors.dataDirectory,
        cwd: config.cwd,
      });
      this.key = loaded.key;
      this.keyFile = loaded.file;
      this.keyCreated = loaded.created;
    } catch (error) {
      if (error instanceof SigningKeyError)
        throw new ConfigurationError([`STRATA_SIGNING_KEY_FILE: ${error.message}`]);
      throw error;
    }
    const trusted = new Map([[this.key.keyId, { keyId: this.key.keyId, publicKey: this.key.publicKey }]]);
    const problems: string[] = [];
    for (const file of config.anchors.trustedPublicKeyFiles) {
      try {
        const key = readPublicKey(resolve(config.cwd, file));
        trusted.set(key.keyId, key);
      } catch (error) {
        if (!(error instanceof SigningKeyError)) throw error;
        problems.push(`STRATA_ANCHOR_PUBLIC_KEYS: ${error.message}`);
      }
    }
    if (problems.length > 0) throw new ConfigurationError(problems);
    this.trustedKeys = trusted;
    this.log = anchorLogIfAny(store);
    this.scheduler =
      config.anchors.enabled && this.log !== undefined
        ? new AnchorScheduler({
            key: this.key,
            log: this.log,
            ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
            ...(options.clock !== undefined ? { clock: options.clock } : {}),
            onWritten: (anchors) => {
              this.written += anchors.length;
            },
            onError: (error) =>
              this.logger.error(
                `anchors could not be written (tried again in a second): ${error instanceof Error ? error.message : String(error)}`,
              ),
          })
        : undefined;
    this.witnesses = this.scheduler !== undefined ? this.witnessesOf(config) : [];
    this.checkpoints =
      this.scheduler !== undefined && this.log !== undefined
        ? new CheckpointScheduler({
            store,
            log: this.log,
            key: this.key,
            intervalMs: options.checkpointIntervalMs ?? config.anchors.checkpointIntervalMs,
            ...(options.clock !== undefined ? { clock: options.clock } : {}),
            onWritten: (entries) => this.handToWitnesses(entries),
            onError: (error) =>
              this.logger.error(
                `the store's checkpoint could not be written (tried again at the next interval): ${error instanceof Error ? error.message : String(error)}`,
              ),
          })
        : undefined;
    this.erasureSigner =
      this.scheduler !== undefined && this.log !== undefined
        ? { log: this.log, key: this.key, ...(options.clock !== undefined ? { clock: options.clock } : {}) }
        : undefined;
  }

  /** Starts writing checkpoints (the first now). */
  start(): void {
    this.checkpoints?.start();
  }

  private witnessesOf(config: EngineConfig): Witness[] {
    const reports = {
      onError: (witness: string, error: unknown) =>
        this.logger.warn(
          `witness ${witness}: ${error instanceof Error ? error.message : String(error)} (the checkpoint stays in the store's log)`,
        ),
    };
    const witnesses: Witness[] = [];
    if (config.anchors.witnessFile !== undefined)
      witnesses.push(new FileWitness(config.anchors.witnessFile, reports));
    if (config.anchors.witnessUrl !== undefined)
      witnesses.push(new UrlWitness(config.anchors.witnessUrl, reports));
    return witnesses;
  }

  private handToWitnesses(entries: readonly CheckpointLogEntry[]): void {
    for (const witness of this.witnesses) witness.handOver(entries);
  }

  /** The logged anchors the query selects, indexed for a verification (the caller closes it). */
  async index(query: AnchorQuery): Promise<AnchorIndex> {
    const keys = this.trustedKeys;
    const candidates =
      this.log !== undefined ? anchorLogCandidates(this.log, query) : (async function* () {})();
    return AnchorIndex.build(candidates, keys);
  }

  /** Told of every append the engine made (the tenant guard's observer). */
  noteAppend(streamId: string, events: readonly EventToAppend[], result: AppendResult): void {
    this.scheduler?.noteAppend(streamId, events, result, SESSION_STREAM_PREFIX);
  }

  /** Told of a session stream this engine erased: its held head is not signed. */
  noteErased(streamId: string): void {
    this.scheduler?.forget(streamId);
  }

  /**
   * Signs every head held now, writes a last checkpoint, hands it to the witnesses (waiting for
   * them at most `witnessDeadline`, epoch ms), and stops signing (at shutdown, before the store closes).
   */
  async close(witnessDeadline = Date.now() + 5_000): Promise<void> {
    await this.scheduler?.close();
    await this.checkpoints?.close();
    await Promise.all(this.witnesses.map((witness) => witness.drain(witnessDeadline)));
  }
}
