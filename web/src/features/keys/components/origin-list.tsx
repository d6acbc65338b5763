// Issue 61, trap 4: a publishable key's websites, each with the near misses a browser treats as
// another website (www or not, another port, localhost vs 127.0.0.1), so the owner lists them all.
import { originHint } from '@tollbooth/contract';

export function OriginList({ origins }: { origins: readonly string[] }) {
  return (
    <ul className="space-y-1" data-testid="key-origins">
      {origins.map((origin) => {
        const hint = originHint(origin);
        return (
          <li key={origin}>
            <span className="font-mono text-xs break-all text-gray-900">{origin}</span>
            {hint ? <span className="block text-xs text-gray-600">{hint}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** Under the form's Allowed Websites field. */
export const ORIGINS_HINT =
  'Each website is an exact origin: scheme, host and port. https://www.shop.example and https://shop.example are two websites, and so are http://localhost:5173 and http://127.0.0.1:5173: list every one your page is opened on.';
