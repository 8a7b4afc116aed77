import { type ReactNode, useEffect, useRef } from 'react';

// The first page of a visit keeps the browser's own focus order (so Tab reaches the skip link first).
let firstPage = true;

/**
 * A page's frame: after an in-app navigation its heading takes focus, so keyboard and screen-reader
 * users land at the new content rather than on the link they followed.
 */
export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · cos hub`;
    if (firstPage) firstPage = false;
    else heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}
