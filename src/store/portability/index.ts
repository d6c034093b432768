// Moving an app's data whole (export, import, fork): its tables as the model makes them, the
// statements that read, load and copy their rows, and consistent snapshots to read them from.

export { appTables } from './tables.js';
export type { AppTable, ColumnKind, TableColumn } from './tables.js';
export { checkForeignKeys, clearTables, copyTable, deferForeignKeys, insertJsonRows, rowsAsJson } from './rows.js';
export { readSnapshot } from './snapshot.js';
export type { DeclareCursor, SnapshotCursor } from './snapshot.js';
export { fileRowsStatement, transactionCursor } from './files.js';
export type { FileBytesRow, TransactionCursor } from './files.js';
