// Write operations for the writer thread's spec (loaded by path on the thread): notes in a
// table, a failing write, and one that ends the thread as a crash would.
import type { SqliteWriteContext, SqliteWriteOperations } from './sqlite-write-executor';

/** @public The writer thread requires this module by path and takes this export by name. */
export const sqliteWriteOperations: SqliteWriteOperations = {
  note({ database, statement }: SqliteWriteContext, args: { readonly text: string }) {
    database.exec('CREATE TABLE IF NOT EXISTS notes (text TEXT NOT NULL)');
    statement('INSERT INTO notes (text) VALUES (?)').run(args.text);
    return `noted ${args.text}`;
  },
  crash() {
    process.exit(3);
  },
};

export const testOperations = {
  note: { module: __filename, operation: 'note' },
  crash: { module: __filename, operation: 'crash' },
} as const;
