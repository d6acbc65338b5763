export function DashboardPage() {
  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Applications</h1>
      <p className="mt-1 text-sm text-gray-600">Manage your applications and view performance insights.</p>
    </div>
  );
}
