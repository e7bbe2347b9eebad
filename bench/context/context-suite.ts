// Suite `context` (issue 2): parsing a session file, building the context at the current
// leaf, counting its tokens and preparing a compaction, on the pi fixtures and on generated
// sessions of 1,000 to 100,000 entries, each next to its baseline in the same run.
import {
  buildSessionContext,
  charsPerFourCounter,
  parseSessionFile,
  pathToEntry,
  type ContextTemplates,
  type TokenCounter,
} from '@strata/session';
import { loadContextTemplates } from '@strata/summarizer';
import { IMAGE_TOKEN_COST, o200kTokenCounter } from '@strata/tokenizer';
import {
  measureCases,
  type BenchCase,
  type BenchSuite,
  type CaseResult,
  type MeasureSettings,
  type SuiteContext,
} from '../harness';
import {
  countContextTokens,
  describePreparation,
  EntryTokenCounts,
  referenceShapeContext,
  referenceShapePreparation,
  rememberingCounter,
  strataContext,
  strataPreparation,
} from './context-cases';
import {
  fixtureNames,
  fixtureSource,
  generatedSource,
  holdSession,
  type DatasetSource,
  type HeldSession,
} from './datasets';

interface GroupSettings {
  readonly parse: MeasureSettings;
  readonly context: MeasureSettings;
  readonly tokens: MeasureSettings;
  readonly preparation: MeasureSettings;
}

function groupSettings(quick: boolean): GroupSettings {
  if (quick) {
    const short: MeasureSettings = { warmupIterations: 1, iterations: 3, maxSeconds: 2, minIterations: 2 };
    return { parse: short, context: { ...short, iterations: 5 }, tokens: short, preparation: short };
  }
  return {
    parse: { warmupIterations: 1, iterations: 10, maxSeconds: 6, minIterations: 3 },
    context: { warmupIterations: 3, iterations: 30, maxSeconds: 5, minIterations: 5 },
    // The uncached o200k cases take seconds each, and js-tiktoken is warm by then (the first
    // build of the leaf context counts every message): no warm-up round.
    tokens: { warmupIterations: 0, iterations: 5, maxSeconds: 4, minIterations: 3 },
    preparation: { warmupIterations: 0, iterations: 6, maxSeconds: 5, minIterations: 3 },
  };
}

/**
 * Large files take seconds per parse, and the parser is warm by then: above 50 MB one round
 * without warm-up (the strict parse that loaded the session is in the facts, `loadParseMs`),
 * above 10 MB three rounds.
 */
function parseSettingsFor(session: HeldSession, settings: GroupSettings): MeasureSettings {
  if (settings.parse.iterations <= 3) return settings.parse;
  if (session.megabytes > 50) return { warmupIterations: 0, iterations: 1, maxSeconds: 0, minIterations: 1 };
  if (session.megabytes > 10) return { warmupIterations: 0, iterations: 3, maxSeconds: 0, minIterations: 3 };
  return settings.parse;
}

function splitLines(text: string): unknown[] {
  const values: unknown[] = [];
  for (const line of text.split('\n')) if (line.trim().length > 0) values.push(JSON.parse(line));
  return values;
}

function parseCases(session: HeldSession): BenchCase<unknown>[] {
  const group = `parse the file · ${session.name}`;
  const common = {
    group,
    unit: 'MB',
    operationsPerIteration: session.megabytes,
    details: { megabytes: session.megabytes },
  };
  return [
    { ...common, name: `parse/${session.name}/json-lines`, role: 'baseline', label: 'JSON.parse per line only', run: () => splitLines(session.text).length },
    { ...common, name: `parse/${session.name}/strict`, role: 'subject', label: 'parseSessionFile (strict: validate, migrate)', run: () => parseSessionFile(session.text, { mode: 'strict' }).entries.length },
  ]; // prettier-ignore
}

function contextCases(
  session: HeldSession,
  templates: ContextTemplates,
  counts: EntryTokenCounts,
): BenchCase<unknown>[] {
  const group = `context at the leaf · ${session.name}`;
  const common = { group, unit: 'context', details: { entries: session.entries.length } };
  return [
    { ...common, name: `context/${session.name}/reference-shape`, role: 'baseline', label: 'reference shape: index + path from scratch, chars/4', run: () => referenceShapeContext(session.entries, session.leafId, templates) },
    { ...common, name: `context/${session.name}/strata`, role: 'subject', label: 'Strata: held index, cached o200k counts', run: () => strataContext(session, templates, counts) },
  ]; // prettier-ignore
}

function tokenCases(session: HeldSession): BenchCase<unknown>[] {
  const messages = buildSessionContext(
    { entries: session.entries, byId: session.byId },
    session.leafId,
  ).messages;
  const group = `count the leaf context's tokens from scratch · ${session.name}`;
  const common = { group, unit: 'context', details: { messages: messages.length } };
  return [
    { ...common, name: `tokens/${session.name}/chars4`, role: 'baseline', label: 'chars/4 (reference heuristic)', run: () => countContextTokens(messages, charsPerFourCounter) },
    { ...common, name: `tokens/${session.name}/o200k`, role: 'subject', label: 'o200k_base (js-tiktoken), uncached', run: () => countContextTokens(messages, o200kTokenCounter) },
  ]; // prettier-ignore
}

function preparationCases(session: HeldSession, remembering: TokenCounter): BenchCase<unknown>[] {
  const group = `prepare a compaction · ${session.name}`;
  const common = { group, unit: 'preparation', details: { entries: session.entries.length } };
  return [
    { ...common, name: `prepare/${session.name}/reference-shape`, role: 'baseline', label: 'reference shape: path from scratch, chars/4', run: () => referenceShapePreparation(session.entries, session.leafId) },
    { ...common, name: `prepare/${session.name}/strata-cached`, role: 'subject', label: 'Strata: held index, cached o200k counts', run: () => strataPreparation(session, remembering) },
    { ...common, name: `prepare/${session.name}/strata-uncached`, role: 'subject', label: 'Strata: held index, o200k uncached', run: () => strataPreparation(session, o200kTokenCounter) },
  ]; // prettier-ignore
}

/** Results of a data set, plus the figures both shapes produced (they must describe the same context). */
async function measureDataset(
  session: HeldSession,
  templates: ContextTemplates,
  context: SuiteContext,
  settings: GroupSettings,
): Promise<{ results: CaseResult[]; facts: Record<string, unknown> }> {
  const counts = new EntryTokenCounts(o200kTokenCounter);
  const remembering = rememberingCounter(o200kTokenCounter, IMAGE_TOKEN_COST);
  // The cached case is measured with its cache filled (the groups have no warm-up round).
  strataPreparation(session, remembering);
  const reference = referenceShapeContext(session.entries, session.leafId, templates);
  const coldStarted = process.hrtime.bigint();
  const strata = strataContext(session, templates, counts);
  const coldMilliseconds = Number(process.hrtime.bigint() - coldStarted) / 1e6;
  const results = [
    ...(await measureCases(
      'context',
      parseCases(session),
      parseSettingsFor(session, settings),
      context.progress,
    )),
    ...(await measureCases(
      'context',
      contextCases(session, templates, counts),
      settings.context,
      context.progress,
    )),
    ...(await measureCases('context', tokenCases(session), settings.tokens, context.progress)),
    ...(await measureCases(
      'context',
      preparationCases(session, remembering),
      settings.preparation,
      context.progress,
    )),
  ];
  const facts = {
    ...session.facts,
    pathLength: pathToEntry(session.byId, session.leafId).length,
    leafContext: {
      referenceShape: reference,
      strata,
      strataFirstBuildWithColdCountsMs: Math.round(coldMilliseconds),
      entriesCounted: counts.size,
    },
    preparation: {
      referenceShape: describePreparation(referenceShapePreparation(session.entries, session.leafId)),
      // The same preparation as uncached o200k (the counts are exact), without counting again.
      strata: describePreparation(strataPreparation(session, remembering)),
    },
  };
  return { results, facts };
}

export const contextSuite: BenchSuite = {
  name: 'context',
  title: 'Context at the leaf, token counting, compaction preparation and file parsing',
  async run(context) {
    const notices: string[] = [];
    const sources: DatasetSource[] = [];
    for (const fileName of fixtureNames) {
      const source = fixtureSource(fileName);
      if (typeof source === 'string') {
        notices.push(source);
        context.progress.step('context', `SKIPPED: ${source}`);
      } else sources.push(source);
    }
    const sizes = context.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
    sources.push(...sizes.map(generatedSource));
    if (context.quick) notices.push('quick run: the 100,000-entry session was left out');
    const templates = loadContextTemplates();
    const settings = groupSettings(context.quick);
    const cases: CaseResult[] = [];
    const datasets: Record<string, unknown> = {};
    for (const source of sources) {
      context.progress.step('context', `loading ${source.name}`);
      const session = holdSession(source);
      const measured = await measureDataset(session, templates, context, settings);
      cases.push(...measured.results);
      datasets[session.name] = measured.facts;
    }
    return { cases, notices, facts: { datasets, keepRecentTokens: 20_000, groupSettings: settings } };
  },
};
