// The hub's database file, in the state directory. A leaf module: the CLI's start-up messages name it
// without loading SQLite.
export const DB_FILE_NAME = 'hub.db';
