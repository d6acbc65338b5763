import type { ReactNode } from 'react';

/** A form's or an action's error, in the red line every form shows it in (role=alert); nothing when there is none. */
export function FormAlert({ message, className, as: Tag = 'div' }: { message: string | null | undefined; className?: string; as?: 'div' | 'p' }) {
  if (!message) return null;
  return (
    <Tag role="alert" className={`${className ? `${className} ` : ''}rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200`}>
      {message}
    </Tag>
  );
}

/** An error as a line of red text (beside a form's buttons, under an action), with an optional margin class. */
export function ErrorLine({ margin, children }: { margin?: string; children: ReactNode }) {
  return (
    <p role="alert" className={margin ? `${margin} text-sm text-red-700` : 'text-sm text-red-700'}>
      {children}
    </p>
  );
}
