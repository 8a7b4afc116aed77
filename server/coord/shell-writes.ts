// The files a shell command recognisably writes, best effort, for a warning before it runs (never a
// refusal: a shell is too rich to be sure of): output redirections (`> f`, `>> f`, `2> f`, `&> f`), `tee`,
// `sed -i`, `mv` (its sources and its destination), `cp` (its destination), `rm`, `touch`, `truncate`, and
// `git mv` / `git rm`. Words built at run time (`$VAR`, `$(…)`, backquotes) are left out; globs are kept
// as written (a reservation's overlap check understands them). Nothing is run or read from disk.

const MAX_COMMAND_CHARS = 20_000;
const MAX_TARGETS = 50;

type Token = { kind: 'word'; text: string; dynamic: boolean } | { kind: 'op'; text: string };

/** Splits a command line into words and operators, honouring quotes and backslashes. */
function tokenize(command: string): Token[] {
  const out: Token[] = [];
  let word = '';
  let inWord = false;
  let dynamic = false;
  let heredoc: string | null = null;
  const flush = () => {
    if (inWord) out.push({ kind: 'word', text: word, dynamic });
    word = '';
    inWord = false;
    dynamic = false;
  };
  const s = command.slice(0, MAX_COMMAND_CHARS);
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      word += s.slice(i + 1, end === -1 ? s.length : end);
      inWord = true;
      i = end === -1 ? s.length : end;
    } else if (c === '"') {
      inWord = true;
      for (i++; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\' && i + 1 < s.length) word += s[++i];
        else {
          if (s[i] === '$' || s[i] === '`') dynamic = true;
          word += s[i];
        }
      }
    } else if (c === '\\') {
      inWord = true;
      if (i + 1 < s.length && s[i + 1] !== '\n') word += s[++i];
      else i++;
    } else if (c === '$' || c === '`') {
      inWord = true;
      dynamic = true;
      word += c;
    } else if (c === '#' && !inWord) {
      // A comment runs to the end of the line.
      const eol = s.indexOf('\n', i);
      i = (eol === -1 ? s.length : eol) - 1;
    } else if (c === ' ' || c === '\t') flush();
    else if (
      c === '\n' ||
      c === ';' ||
      c === '(' ||
      c === ')' ||
      c === '|' ||
      c === '&' ||
      c === '<' ||
      c === '>'
    ) {
      // A file descriptor number right before a redirection belongs to it (`2>`), not to the words.
      const fd = /^\d+$/.test(word) && inWord && c === '>' ? word : null;
      if (fd === null) flush();
      else {
        word = '';
        inWord = false;
      }
      let op = c;
      while (i + 1 < s.length && '|&<>'.includes(s[i + 1] as string) && op.length < 3) op += s[++i];
      if (op === '\n' && heredoc !== null) {
        // The here-document's lines are text, not commands: resume after its terminator line.
        const end = s.indexOf(`\n${heredoc}\n`, i);
        const last = s.endsWith(`\n${heredoc}`) ? s.length - heredoc.length - 1 : -1;
        const at = end !== -1 ? end : last;
        i = at === -1 ? s.length : at + heredoc.length + 1;
        heredoc = null;
      } else if (op === '<<' || op === '<<-') {
        const m = /^\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?/.exec(s.slice(i + 1));
        if (m?.[1]) heredoc = m[1];
      }
      out.push({ kind: 'op', text: op === '\n' ? ';' : op });
    } else {
      inWord = true;
      word += c;
    }
  }
  flush();
  return out;
}

const REDIRECT = /^(?:&?>{1,2}\|?|>&?|>\|)$/;
const SEPARATORS = new Set([';', ';;', '&&', '||', '|', '&', '|&', '(', ')']);
const WRAPPERS = new Set(['sudo', 'command', 'nohup', 'time', 'env', 'exec', 'builtin']);

/** Options of these commands that take a value (the value is not a file to write). */
const VALUE_OPTIONS: Record<string, Set<string>> = {
  sed: new Set(['-e', '-f', '-l', '--expression', '--file', '--line-length']),
  mv: new Set(['-S', '--suffix']),
  cp: new Set(['-S', '--suffix']),
  truncate: new Set(['-s', '-r', '--size', '--reference']),
  touch: new Set(['-d', '-r', '-t', '--date', '--reference']),
  rm: new Set([]),
  tee: new Set([]),
};

function operands(cmd: string, args: readonly Token[]): { files: string[]; options: string[] } {
  const files: string[] = [];
  const options: string[] = [];
  const takesValue = VALUE_OPTIONS[cmd] ?? new Set<string>();
  let afterDashes = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a?.kind !== 'word') continue;
    if (!afterDashes && a.text === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && a.text.startsWith('-') && a.text.length > 1) {
      options.push(a.text);
      if (takesValue.has(a.text)) {
        const v = args[++i];
        if (v?.kind === 'word') options.push(v.text);
      }
      // `-t DIR` / `--target-directory=DIR`: a destination (mv, cp).
      if ((cmd === 'mv' || cmd === 'cp') && a.text === '-t') {
        const v = args[++i];
        if (v?.kind === 'word' && !v.dynamic) files.push(v.text);
      } else if ((cmd === 'mv' || cmd === 'cp') && a.text.startsWith('--target-directory='))
        files.push(a.text.slice('--target-directory='.length));
      continue;
    }
    if (!a.dynamic) files.push(a.text);
  }
  return { files, options };
}

/** What one simple command (words, redirections already taken out) writes. */
function commandWrites(words: Token[]): string[] {
  let i = 0;
  for (;;) {
    const w = words[i];
    if (w?.kind !== 'word') return [];
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text) || WRAPPERS.has(w.text)) i++;
    else break;
  }
  let name = (words[i] as Token & { kind: 'word' }).text.split('/').pop() ?? '';
  let args = words.slice(i + 1);
  if (name === 'git') {
    const sub = args.findIndex((a) => a.kind === 'word' && !a.text.startsWith('-'));
    const verb = sub === -1 ? undefined : (args[sub] as Token & { kind: 'word' }).text;
    if (verb !== 'mv' && verb !== 'rm') return [];
    name = verb;
    args = args.slice(sub + 1);
  }
  switch (name) {
    case 'rm':
    case 'tee':
    case 'touch':
    case 'truncate':
    case 'mv':
      return operands(name, args).files;
    case 'cp': {
      const { files, options } = operands(name, args);
      // The destination: the -t directory, else the last operand.
      if (options.includes('-t') || options.some((o) => o.startsWith('--target-directory=')))
        return files.slice(0, 1);
      return files.length > 1 ? files.slice(-1) : [];
    }
    case 'sed': {
      const { files, options } = operands(name, args);
      if (!options.some((o) => o.startsWith('-i') || o.startsWith('--in-place'))) return [];
      // Without -e or -f the first operand is the script.
      const scripted = options.some((o) => ['-e', '-f', '--expression', '--file'].includes(o));
      return scripted ? files : files.slice(1);
    }
    default:
      return [];
  }
}

/** The paths (as written, relative to the command's directory) a command line recognisably writes. */
export function shellWriteTargets(command: string): string[] {
  const out: string[] = [];
  const add = (p: string) => {
    if (p !== '' && !out.includes(p) && out.length < MAX_TARGETS) out.push(p);
  };
  const tokens = tokenize(command);
  let words: Token[] = [];
  const end = () => {
    for (const p of commandWrites(words)) add(p);
    words = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === 'word') {
      words.push(t);
      continue;
    }
    if (REDIRECT.test(t.text)) {
      const target = tokens[i + 1];
      i++;
      // `>&2`, `2>&1`: a descriptor, not a file.
      if (target?.kind === 'word' && !target.dynamic && !(t.text.endsWith('&') && /^\d+$/.test(target.text)))
        add(target.text);
      continue;
    }
    if (t.text === '<' || t.text === '<<' || t.text === '<<<' || t.text === '<<-') {
      i++; // what is read (or the here-document's delimiter) is not written
      continue;
    }
    if (SEPARATORS.has(t.text) || t.text.startsWith('|') || t.text.startsWith('&')) end();
  }
  end();
  return out;
}
