export function AuthRequiredNotice() {
  return (
    <div className="rounded-md bg-yellow-50 p-4 ring-1 ring-yellow-200">
      <h2 className="text-sm font-semibold text-yellow-800">Authentication Required</h2>
      <p className="mt-1 text-sm text-yellow-700">Please log in to access your applications and test APIs.</p>
      <p className="mt-1 text-sm text-yellow-700">You can still call an application by its slug with an API key.</p>
    </div>
  );
}
