// Counts in copy: "1 issue", "2 issues", "1,204 files". English plural rules; the SPA speaks English.
const rules = new Intl.PluralRules('en');

/** `n` with its noun in the right number (`other` defaults to `one` + "s"). */
export function count(n: number, one: string, other = `${one}s`): string {
  return `${n.toLocaleString('en')} ${rules.select(n) === 'one' ? one : other}`;
}
