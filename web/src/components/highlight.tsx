/** A search snippet with its matches wrapped in ** (as the hub sends them), shown as <mark>. */
export function Highlight({ text }: { text: string }) {
  const parts = text.split('**');
  return (
    <span className="snippet-text">
      {parts.map((part, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one string have only their position
        i % 2 === 1 ? <mark key={i}>{part}</mark> : <span key={i}>{part}</span>,
      )}
    </span>
  );
}
