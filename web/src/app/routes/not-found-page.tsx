import { Link } from 'react-router';
import { primaryButton, secondaryButton } from '../../components/ui/styles';

export function NotFoundPage() {
  return (
    <div className="flex min-h-[70vh] flex-col items-center justify-center px-4 py-16 text-center">
      <p className="text-6xl font-extrabold text-indigo-600">404</p>
      <h1 className="mt-4 text-3xl font-bold tracking-tight text-gray-900">Page not found</h1>
      <p className="mt-3 text-gray-600">Please check the URL in the address bar and try again.</p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Link to="/" className={primaryButton}>
          Go back home
        </Link>
        <Link to="/dashboard" className={secondaryButton}>
          Dashboard
        </Link>
      </div>
    </div>
  );
}
