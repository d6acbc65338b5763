// The Terms of Service and Privacy Policy the sign-up page asks new accounts to accept: what this
// installation does with accounts, prompts, calls and money, in plain words.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { textLink } from '@/components/ui/styles';
import { useRuntimeConfig } from '@/lib/runtime-config';

function LegalPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <article className="mx-auto max-w-3xl px-4 py-12 sm:px-6 lg:px-8">
      <h1 className="text-3xl font-bold tracking-tight text-gray-900">{title}</h1>
      <div className="mt-6 space-y-6 text-gray-700 [&_h2]:text-lg [&_h2]:font-semibold [&_h2]:text-gray-900 [&_li]:ml-5 [&_li]:list-disc [&_p]:mt-2">
        {children}
      </div>
      <p className="mt-10 text-sm text-gray-600">
        <Link to="/register" className={textLink}>
          Back to sign-up
        </Link>{' '}
        ·{' '}
        <Link to="/" className={textLink}>
          Home
        </Link>
      </p>
    </article>
  );
}

export function TermsPage() {
  const { product_name: productName } = useRuntimeConfig();
  return (
    <LegalPage title="Terms of Service">
      <section>
        <h2>The service</h2>
        <p>
          {productName} lets creators publish AI prompts and Dify workflows as paid APIs, and lets callers invoke them with API keys. These terms apply to
          everyone with an account on this installation; its operator runs it and answers for it.
        </p>
      </section>
      <section>
        <h2>Creators</h2>
        <ul>
          <li>You are responsible for the prompts and workflows you publish and for what they answer.</li>
          <li>You set the price per call; earnings are credited when a call is charged, and calls answered by the built-in demo model are never charged.</li>
          <li>Do not publish anything unlawful, or anything that harvests callers' data without their knowledge.</li>
        </ul>
      </section>
      <section>
        <h2>Callers</h2>
        <ul>
          <li>Each successful call is charged at the price shown for the application, from your credits or your plan's included calls.</li>
          <li>Keep your API keys secret; calls made with your key are charged to you. Revoke a key you no longer trust on your profile page.</li>
          <li>Answers come from AI models and may be wrong; check them before relying on them.</li>
        </ul>
      </section>
      <section>
        <h2>Accounts</h2>
        <p>We may suspend an account that abuses the service (for example by flooding it with calls). You may stop using it at any time.</p>
      </section>
    </LegalPage>
  );
}

export function PrivacyPage() {
  const { product_name: productName } = useRuntimeConfig();
  return (
    <LegalPage title="Privacy Policy">
      <section>
        <h2>What {productName} keeps</h2>
        <ul>
          <li>Your account: email address, names and display name, and when you joined.</li>
          <li>For each API call: the application, the time, the outcome, the duration, the price and the caller's account or the user name the caller sent.</li>
          <li>Your applications, their prompts and versions, and (encrypted) the workflow provider keys you enter.</li>
          <li>Payments: the card brand, last four digits and expiry date; card numbers stay with the payment provider.</li>
        </ul>
      </section>
      <section>
        <h2>How it is used</h2>
        <p>
          To run the service: to sign you in, answer and charge calls, show creators their analytics and pay them. Inputs of a call are sent to the model or
          workflow provider that answers it. Nothing is sold or shared for advertising.
        </p>
      </section>
      <section>
        <h2>Your choices</h2>
        <p>
          You can change your names on your{' '}
          <Link to="/profile" className={textLink}>
            profile page
          </Link>{' '}
          and ask the operator of this installation to delete your account and its data.
        </p>
      </section>
    </LegalPage>
  );
}
