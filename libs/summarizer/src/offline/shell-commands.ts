// Reads the shell line of a `bash` tool call just far enough for the offline summariser: which
// programs it runs (so the output of `ls`, `cat` or `grep` counts as content, not diagnostics),
// what it runs without the way its output is shown (so `npm run check 2>&1 | tail -20` is the
// same command as `npm run check`), and whether it builds, checks or tests the code.

export interface CommandSegment {
  /** The words of one simple command, quotes removed, redirections left out. */
  readonly words: readonly string[];
  /** The operator joining it to the previous command (`&&`, `||`, `;`, `|`, `&`, `\n`). */
  readonly joinedBy: string | undefined;
}

/** Programs that only list, search or print: their output is content. */
const listingPrograms = new Set(
  (
    'ls ll la cat bat head tail less more grep egrep fgrep rg ag ack find fd wc tree sed awk sort uniq cut ' +
    'tr nl column echo printf pwd cd pushd popd which type file stat du df jq yq diff cmp basename dirname ' +
    'realpath readlink true date env'
  ).split(' '),
);

/** Subcommands that make `git`, `npm` and the like listing commands. */
const listingSubcommands: Readonly<Record<string, ReadonlySet<string>>> = {
  git: new Set(
    'log show diff status ls-files grep blame branch rev-parse remote describe shortlog tag'.split(' '),
  ),
  npm: new Set('ls list ll la view info why explain outdated'.split(' ')),
  pnpm: new Set('ls list why outdated'.split(' ')),
  yarn: new Set('list why info outdated'.split(' ')),
};

/** Words naming a build, type check, lint or test run (programs and package scripts). */
const verificationWords = new Set(
  (
    'check test tests build lint typecheck type-check tsc tsgo jest vitest mocha ava eslint biome prettier ' +
    'playwright pytest mypy ruff flake8 clippy vet compile ci verify'
  ).split(' '),
);

/** Programs a pipe may feed that only cut or filter what is shown. */
const outputFilters = new Set([
  'head',
  'tail',
  'grep',
  'egrep',
  'rg',
  'sort',
  'uniq',
  'wc',
  'less',
  'cat',
  'tee',
]);

const redirection = /^(?:\d*|&)(?:>>?|<)(?:&\d+)?/;
/** A redirection whose target is the next word (`>` `out.txt`). */
const bareRedirection = /^(?:\d*|&)(?:>>?|<)$/;
const assignment = /^\w+=/;

/** The text of a quoted string starting at `start`, and the index of its closing quote. */
function quoted(command: string, start: number): { text: string; end: number } {
  const quote = command[start];
  let text = '';
  let index = start + 1;
  while (index < command.length && command[index] !== quote) {
    if (quote === '"' && command[index] === '\\' && '"\\$`'.includes(command[index + 1] ?? '')) index += 1;
    text += command[index] ?? '';
    index += 1;
  }
  return { text, end: index };
}

/** Splits a shell line into simple commands, respecting quotes and backslashes. */
export function commandSegments(command: string): CommandSegment[] {
  const segments: CommandSegment[] = [];
  let words: string[] = [];
  let word: string | undefined;
  let joinedBy: string | undefined;
  let dropNextWord = false;
  const endWord = (): void => {
    if (word === undefined) return;
    if (dropNextWord) dropNextWord = false;
    else if (redirection.test(word)) dropNextWord = bareRedirection.test(word);
    else words.push(word);
    word = undefined;
  };
  const endSegment = (operator: string): void => {
    endWord();
    if (words.length > 0) segments.push({ words, joinedBy });
    words = [];
    joinedBy = operator;
  };
  for (let index = 0; index < command.length; index += 1) {
    const character = command[index] ?? '';
    const next = command[index + 1] ?? '';
    if (character === "'" || character === '"') {
      const string = quoted(command, index);
      word = (word ?? '') + string.text;
      index = string.end;
    } else if (character === '\\') {
      word = (word ?? '') + next;
      index += 1;
    } else if ((character === '&' || character === '|') && next === character) {
      endSegment(character + next);
      index += 1;
    } else if (character === '|' || character === ';' || character === '\n') {
      endSegment(character);
    } else if (character === '&' && next !== '>' && !/[<>]$/.test(word ?? '')) {
      endSegment(character);
    } else if (/\s/.test(character)) {
      endWord();
    } else {
      word = (word ?? '') + character;
    }
  }
  endSegment('');
  return segments;
}

function commandWords(segment: CommandSegment): readonly string[] {
  return segment.words.filter((word) => !assignment.test(word));
}

function programOf(segment: CommandSegment): string {
  return commandWords(segment)[0]?.split('/').at(-1) ?? '';
}

/** Whether a shell line only lists, searches or prints (its output is content, not diagnostics). */
export function isListingCommand(command: string): boolean {
  const segments = commandSegments(command);
  return (
    segments.length > 0 &&
    segments.every((segment) => {
      const program = programOf(segment);
      const subcommand = commandWords(segment)[1];
      return (
        listingPrograms.has(program) ||
        (subcommand !== undefined && listingSubcommands[program]?.has(subcommand) === true)
      );
    })
  );
}

/** The commands that do the work: `cd` steps and the filters output is piped into are left out. */
function workingSegments(command: string): CommandSegment[] {
  const working: CommandSegment[] = [];
  let filtering = false;
  for (const segment of commandSegments(command)) {
    const program = programOf(segment);
    if (segment.joinedBy === '|') {
      filtering ||= outputFilters.has(program);
      if (!filtering) working.push(segment);
    } else {
      filtering = false;
      if (program !== 'cd' && program !== 'pushd') working.push(segment);
    }
  }
  return working;
}

/**
 * What a shell line runs, without where and how its output is shown: `cd` steps, redirections
 * and the filters its output is piped into are left out, so `cd app && npm run check 2>&1 | tail
 * -20` and `npm run check` are the same command.
 */
export function commandKey(command: string): string {
  return workingSegments(command)
    .map((segment, index) => {
      const words = segment.words.join(' ');
      if (index === 0) return words;
      return `${segment.joinedBy === '|' ? '|' : '&&'} ${words}`;
    })
    .join(' ');
}

/** Whether a shell line builds, type-checks, lints or tests: its latest run tells the state of the code. */
export function isVerificationCommand(command: string): boolean {
  if (isListingCommand(command)) return false;
  return workingSegments(command).some((segment) =>
    commandWords(segment).some((word) =>
      verificationWords.has(word.split(/[/:]/).at(-1)?.toLowerCase() ?? ''),
    ),
  );
}
