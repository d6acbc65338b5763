/** A plan's features, one "name: value" line each; nothing when it lists none. */
export function PlanFeatures({ features, className }: { features: Record<string, string>; className: string }) {
  if (Object.keys(features).length === 0) return null;
  return (
    <ul className={className}>
      {Object.entries(features).map(([key, value]) => (
        <li key={key}>
          {key}: {value}
        </li>
      ))}
    </ul>
  );
}
