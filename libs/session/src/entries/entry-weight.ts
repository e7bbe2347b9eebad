// What an entry weighs in the engine's memory bounds. Caches of folded sessions are bounded in
// entries; counted one each, a session of large entries (base64 images, whole files in tool
// output) could hold gigabytes under a bound meant for a few hundred megabytes. An entry weighs
// one, plus one per whole `ENTRY_WEIGHT_CHARACTERS` of the text it holds, so a bound of N entries
// holds at most about N × 2 kB of text whatever the entries' sizes.

/** Characters of text that weigh as much as one small entry (about its heap when held). */
export const ENTRY_WEIGHT_CHARACTERS = 2048;

/** The characters of every string in a JSON value, keys included. */
function textCharacters(value: unknown): number {
  let characters = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') characters += next.length;
    else if (Array.isArray(next)) for (const item of next as readonly unknown[]) pending.push(item);
    else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) {
        characters += key.length;
        pending.push(item);
      }
    }
  }
  return characters;
}

/** The weight of one entry: 1, plus 1 per whole `ENTRY_WEIGHT_CHARACTERS` of its text. */
export function entryWeight(entry: object): number {
  return 1 + Math.floor(textCharacters(entry) / ENTRY_WEIGHT_CHARACTERS);
}
