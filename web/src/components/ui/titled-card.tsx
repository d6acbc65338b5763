import type { ReactNode } from 'react';

const CARD = 'rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200';

/**
 * A card that is a section named by its heading (`${id}-title`): white unless `className` says
 * otherwise, with an `action` (a button or link) at the heading's right when given.
 */
export function TitledCard({
  id,
  title,
  action,
  small,
  className = CARD,
  children,
}: {
  id: string;
  title: ReactNode;
  /** Beside the heading; null keeps the heading's row with nothing in it. */
  action?: ReactNode;
  /** A smaller heading (text-base). */
  small?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const heading = (
    <h2 id={`${id}-title`} className={`${small ? 'text-base' : 'text-lg'} font-semibold text-gray-900`}>
      {title}
    </h2>
  );
  return (
    <section aria-labelledby={`${id}-title`} className={className}>
      {action === undefined ? (
        heading
      ) : (
        <div className="flex flex-wrap items-center justify-between gap-3">
          {heading}
          {action}
        </div>
      )}
      {children}
    </section>
  );
}
