import { commandKey, commandSegments, isListingCommand, isVerificationCommand } from './shell-commands';

describe('a shell line', () => {
  it('splits into simple commands on operators outside quotes, without redirections', () => {
    expect(
      commandSegments('cd /repo && grep -n "a\\|b|c" src/x.ts 2>&1 | head -5; echo \'x && y\' > out.txt'),
    ).toEqual([
      { words: ['cd', '/repo'], joinedBy: undefined },
      { words: ['grep', '-n', 'a\\|b|c', 'src/x.ts'], joinedBy: '&&' },
      { words: ['head', '-5'], joinedBy: '|' },
      { words: ['echo', 'x && y'], joinedBy: ';' },
    ]);
  });

  it.each([
    'ls packages/coding-agent/src/errors',
    'cd /repo && wc -l src/a.ts && grep -n "showError\\|errorMessage" src/a.ts',
    'git log --oneline | head -20',
    'npm ls redis-errors',
    'find . -name "*.ts" | sort',
  ])('%s only lists or prints', (command) => {
    expect(isListingCommand(command)).toBe(true);
  });

  it.each(['npm run check 2>&1 | head -50', 'npx tsx -e "console.log(1)"', 'git commit -m "ls"', 'make'])(
    '%s does more than list',
    (command) => {
      expect(isListingCommand(command)).toBe(false);
    },
  );

  it('is the same command whatever the directory and the filters its output goes through', () => {
    expect(commandKey('cd /repo && npm run check 2>&1 | head -50')).toBe('npm run check');
    expect(commandKey('npm run check 2>&1 | grep -E "(error|warning)" | tail -5')).toBe('npm run check');
    expect(commandKey('cd pkg && npx tsgo --noEmit 2>&1 | head -80')).toBe('npx tsgo --noEmit');
    expect(commandKey('npm test && npm run lint | tee lint.txt')).toBe('npm test && npm run lint');
    expect(commandKey('node build.js | node report.js')).toBe('node build.js | node report.js');
  });

  it('builds, checks or tests when it runs such a program or package script', () => {
    for (const command of [
      'cd /repo && npm run check 2>&1 | tail -10',
      'npx tsgo --noEmit',
      'pnpm test -- truncated-text.test.ts',
      'cargo build',
    ])
      expect(isVerificationCommand(command)).toBe(true);
    for (const command of ['npx tsx -e "check()"', 'grep -n check src/a.ts', 'git commit -m "fix the build"'])
      expect(isVerificationCommand(command)).toBe(false);
  });
});
