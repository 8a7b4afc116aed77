// One string as a YAML scalar that every common reader reads back as that same string: YAML 1.2 (the
// `yaml` package the hub reads with) and YAML 1.1 (PyYAML, Ruby's Psych, go-yaml v2), where `yes`, `on`,
// `no`, `~`, `1_000`, `0x1F`, `12:30` and `2024-01-01` are booleans, null, numbers or dates. A string is
// written plain only when it is made of ordinary characters and no reader could take it for anything
// else; everything else is double-quoted with escapes for every character a reader could mangle (C0 and
// C1 controls, DEL, the Unicode line separators, noncharacters), so it stays on one line.

/** Words YAML 1.1 or 1.2 reads as a boolean or null. */
const RESERVED_WORDS = new Set(
  [
    'y|Y|yes|Yes|YES|n|N|no|No|NO',
    'true|True|TRUE|false|False|FALSE',
    'on|On|ON|off|Off|OFF',
    'null|Null|NULL',
  ].flatMap((group) => group.split('|')),
);

/**
 * Characters a plain scalar may carry after its first: letters, digits, combining marks, spaces and a few
 * marks with no meaning there. Flow indicators (`,[]{}`), `:` and `#` are left out: the strings are also
 * written inside flow sequences (`labels: [a, b]`).
 */
const PLAIN = /^[\p{L}\p{N}][\p{L}\p{N}\p{M} _./()'+\-@!?&%=]*$/u;
/** Strings starting with a digit that some reader takes for a number, a date or a time. */
const NUMBER_LIKE = /^[-+]?[0-9][0-9_.:]*(?:[eE][-+]?[0-9]+)?$|^0[bBoOxX]|^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}/;
/** The characters a double-quoted scalar must escape beyond JSON's: DEL, C1, NEL, line separators, noncharacters. */
const UNSAFE_IN_QUOTES = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** Whether `v` can be written without quotes and read back as the same string by YAML 1.1 and 1.2. */
export function isPlainSafe(v: string): boolean {
  if (!PLAIN.test(v) || v.endsWith(' ')) return false;
  if (RESERVED_WORDS.has(v)) return false;
  return !NUMBER_LIKE.test(v);
}

/** A double-quoted YAML scalar: JSON's escapes (valid YAML) plus \u escapes for what JSON leaves raw. */
export function quoteYaml(v: string): string {
  return JSON.stringify(v).replace(
    UNSAFE_IN_QUOTES,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function yamlString(v: string): string {
  return isPlainSafe(v) ? v : quoteYaml(v);
}
