interface AuthNotConfiguredProps {
  /** Why the settings could not be used, e.g. the request failure; optional. */
  reason?: string | null;
}

/** Shown instead of the whole app when GET /api/config fails or names no identity provider. */
export function AuthNotConfigured({ reason }: AuthNotConfiguredProps) {
  return (
    <main className="flex min-h-screen items-center justify-center bg-gray-50 px-4">
      <div className="w-full max-w-lg rounded-lg border border-yellow-200 bg-white p-8 shadow-sm">
        <h1 className="text-2xl font-bold text-gray-900">Authentication Not Configured</h1>
        <p className="mt-3 text-gray-600">
          Tollbooth could not load its sign-in settings, so nobody can sign in yet. The server must either run its embedded identity provider (leave{' '}
          <code className="rounded bg-gray-100 px-1">OIDC_ISSUER</code> unset) or name an external one with{' '}
          <code className="rounded bg-gray-100 px-1">OIDC_ISSUER</code>, <code className="rounded bg-gray-100 px-1">OIDC_CLIENT_ID</code> and{' '}
          <code className="rounded bg-gray-100 px-1">OIDC_AUDIENCE</code>.
        </p>
        {reason ? <p className="mt-3 rounded-md bg-red-50 p-3 text-sm text-red-700">{reason}</p> : null}
        <button
          type="button"
          onClick={() => window.location.reload()}
          className="mt-6 rounded-md bg-indigo-600 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          Try again
        </button>
      </div>
    </main>
  );
}
