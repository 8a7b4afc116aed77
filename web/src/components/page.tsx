import { type ReactNode, useEffect, useRef } from 'react';

/**
 * A page's frame: its heading takes focus when the page opens, so keyboard and screen-reader users
 * land at the new content rather than at the top of the document.
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
    heading.current?.focus({ preventScroll: true });
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
