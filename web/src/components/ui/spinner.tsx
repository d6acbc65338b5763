function SpinnerIcon({ className }: { className: string }) {
  return (
    <svg className={`animate-spin text-indigo-600 ${className}`} viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle className="opacity-25" cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" />
      <path className="opacity-75" fill="currentColor" d="M4 12a8 8 0 018-8v4a4 4 0 00-4 4H4z" />
    </svg>
  );
}

interface SpinnerProps {
  /** Read by screen readers; visually hidden. */
  label?: string;
  className?: string;
}

export function Spinner({ label = 'Loading', className = 'h-5 w-5' }: SpinnerProps) {
  return (
    <span role="status" className="inline-flex items-center">
      <SpinnerIcon className={className} />
      <span className="sr-only">{label}</span>
    </span>
  );
}

/** A centred spinner with visible text, for whole-page waits. */
export function PageSpinner({ message }: { message: string }) {
  return (
    <div role="status" className="flex min-h-[50vh] flex-col items-center justify-center gap-3 text-gray-600">
      <SpinnerIcon className="h-8 w-8" />
      <p>{message}</p>
    </div>
  );
}
