import type { ReactNode } from 'react';
import { Link } from 'react-router';

interface AuthCardProps {
  productName: string;
  title: string;
  subtitle?: string;
  children: ReactNode;
}

export function AuthCard({ productName, title, subtitle, children }: AuthCardProps) {
  return (
    <div className="flex min-h-[calc(100vh-4rem)] items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="text-center">
          <Link
            to="/"
            className="inline-block rounded-sm text-3xl font-extrabold tracking-tight text-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-indigo-600"
          >
            {productName}
          </Link>
          <h1 className="mt-6 text-2xl font-bold tracking-tight text-gray-900">{title}</h1>
          {subtitle ? <p className="mt-2 text-sm text-gray-600">{subtitle}</p> : null}
        </div>
        <div className="mt-8 rounded-lg bg-white px-6 py-8 shadow-sm ring-1 ring-gray-200 sm:px-10">{children}</div>
      </div>
    </div>
  );
}

export function AuthErrorMessage({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div role="alert" className="mb-4 rounded-md bg-red-50 p-3 text-sm text-red-700 ring-1 ring-red-200">
      {message}
    </div>
  );
}
