// Small pieces of the billing screens: the subscription badge (with the red tone for canceled), the
// not-configured notice, the modal frame and the card expiry text.
import type { ReactNode } from 'react';

const tones = {
  green: 'bg-green-100 text-green-800',
  red: 'bg-red-100 text-red-800',
  yellow: 'bg-yellow-100 text-yellow-800',
  indigo: 'bg-indigo-100 text-indigo-800',
  gray: 'bg-gray-100 text-gray-800',
};

export function Badge({ tone, children }: { tone: keyof typeof tones; children: ReactNode }) {
  return <span className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ${tones[tone]}`}>{children}</span>;
}

/** Subscription status: active green, canceled red, anything else yellow (spec section 9). */
export const subscriptionTone = (status: string): keyof typeof tones => (status === 'active' ? 'green' : status === 'canceled' ? 'red' : 'yellow');

export function StripeNotConfigured() {
  return (
    <div role="note" className="rounded-md bg-yellow-50 p-4 text-sm text-yellow-800 ring-1 ring-yellow-200">
      Stripe (the card payment provider) is not configured. Payment functionality is not available.
    </div>
  );
}

export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-gray-900/50 p-4">
      <div role="dialog" aria-modal="true" aria-label={title} className="max-h-[90vh] w-full max-w-lg overflow-y-auto rounded-lg bg-white p-6 shadow-xl">
        <div className="flex items-start justify-between">
          <h2 className="text-lg font-semibold text-gray-900">{title}</h2>
          <button type="button" aria-label="Close" onClick={onClose} className="rounded-md p-1 text-gray-400 hover:text-gray-600">
            ✕
          </button>
        </div>
        <div className="mt-4">{children}</div>
      </div>
    </div>
  );
}

/** "Expires MM/YYYY", the month padded to 2 digits. */
export const formatExpiry = (month: number, year: number) => `Expires ${String(month).padStart(2, '0')}/${year}`;
