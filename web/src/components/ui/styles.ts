// Class lists shared by buttons and links that look like buttons, so focus states stay consistent.

const base =
  'inline-flex items-center justify-center gap-2 rounded-md px-4 py-2 text-sm font-semibold transition-colors ' +
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60';

export const primaryButton = `${base} bg-indigo-600 text-white shadow-sm hover:bg-indigo-500 disabled:hover:bg-indigo-600`;

export const secondaryButton = `${base} bg-white text-gray-900 shadow-sm ring-1 ring-gray-300 ring-inset hover:bg-gray-50`;

export const textLink =
  'font-medium text-indigo-600 hover:text-indigo-500 rounded-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';

export const inputField =
  'block w-full rounded-md border-0 px-3 py-2 text-gray-900 shadow-sm ring-1 ring-gray-300 ring-inset placeholder:text-gray-500 ' +
  'focus:ring-2 focus:ring-indigo-600 focus:ring-inset focus:outline-none sm:text-sm disabled:cursor-not-allowed disabled:bg-gray-100 disabled:text-gray-500';
