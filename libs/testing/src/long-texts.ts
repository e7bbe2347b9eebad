// Long texts for tests of token counting: pseudo-random lower-case letters form one long piece
// under o200k (as a minified file or a line of base64 does) whose merge windows never repeat, the
// slowest text per byte for the counter, so that its count lasts long enough to be seen sharing
// the event loop. Deterministic for a seed.

export function pseudoRandomLetters(length: number, seed = 1): string {
  let state = seed;
  const letters: string[] = [];
  for (let index = 0; index < length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    letters.push(String.fromCharCode(97 + (state % 26)));
  }
  return letters.join('');
}
