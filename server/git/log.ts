// `git log` → commits with their files. One call prints each commit's header fields NUL-separated after a
// record separator, then its files as `-z --name-status` pairs (renames as status, old, new), so names
// with spaces, tabs or newlines come through whole. Merges list what they changed against their first
// parent: for a merged task branch that is the branch's whole change.

export interface CommitFile {
  path: string;
  old_path: string | null;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed';
}

export interface Commit {
  sha: string;
  parents: string[];
  author: string;
  email: string;
  /** Author time, ISO 8601 with offset as git prints it. */
  time: string;
  subject: string;
  /** The whole message, subject included. */
  message: string;
  files: CommitFile[];
}

export const LOG_FORMAT = '--format=%x1e%H%x00%P%x00%an%x00%ae%x00%aI%x00%B%x00';
export const LOG_FLAGS = ['-z', '--name-status', '--diff-merges=first-parent', '-M', '--no-color'];

const STATUS: Record<string, CommitFile['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

export function parseLog(text: string): Commit[] {
  const out: Commit[] = [];
  for (const record of text.split('\x1e')) {
    if (record === '') continue;
    const parts = record.split('\0');
    const [sha, parents, author, email, time, message] = parts;
    if (sha === undefined || !/^[0-9a-f]{40,64}$/.test(sha) || message === undefined) continue;
    const files: CommitFile[] = [];
    for (let i = 6; i < parts.length; i++) {
      const code = (parts[i] ?? '').replace(/^\n+/, '');
      if (code === '') continue;
      const status = STATUS[code[0] ?? ''];
      if (status === undefined) continue;
      if (status === 'renamed' || status === 'copied') {
        const from = parts[i + 1];
        const to = parts[i + 2];
        i += 2;
        if (from !== undefined && to !== undefined) files.push({ path: to, old_path: from, status });
      } else {
        const path = parts[i + 1];
        i += 1;
        if (path !== undefined && path !== '') files.push({ path, old_path: null, status });
      }
    }
    const trimmed = message.replace(/\s+$/, '');
    out.push({
      sha,
      parents: parents ? parents.split(' ').filter(Boolean) : [],
      author: author ?? '',
      email: email ?? '',
      time: time ?? '',
      subject: trimmed.split('\n', 1)[0] ?? '',
      message: trimmed,
      files,
    });
  }
  return out;
}
