import type { ReactNode } from 'react';

/** The red box titled Error that list, detail and analytics pages show when loading fails. */
export function ErrorBox({ title = 'Error', message, children }: { title?: string; message: string; children?: ReactNode }) {
  return (
    <div role="alert" className="rounded-md bg-red-50 p-4 ring-1 ring-red-200">
      <h2 className="text-sm font-semibold text-red-800">{title}</h2>
      <p className="mt-1 text-sm text-red-700">{message}</p>
      {children}
    </div>
  );
}
