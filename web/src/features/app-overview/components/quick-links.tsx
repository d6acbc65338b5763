import { Link } from 'react-router';

const quickLinks = [
  { to: '/applications/create', title: 'Create New Application', text: 'Publish a prompt or a workflow as a paid API.' },
  { to: '/prompts', title: 'Manage Prompts', text: 'Browse and edit your prompt applications.' },
  { to: '/workflows', title: 'Manage Workflows', text: 'Browse and configure your workflow applications.' },
  { to: '/analytics', title: 'View Analytics', text: 'Invocations, users, errors and revenue across applications.' },
];

export function QuickLinks() {
  return (
    <nav aria-label="Quick links" className="grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-4">
      {quickLinks.map((link) => (
        <Link
          key={link.to}
          to={link.to}
          className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200 transition hover:shadow-md hover:ring-indigo-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          <span className="block text-base font-semibold text-gray-900">{link.title}</span>
          <span className="mt-1 block text-sm text-gray-600">{link.text}</span>
        </Link>
      ))}
    </nav>
  );
}
