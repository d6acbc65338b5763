export interface StatCard {
  label: string;
  value: string;
  /** A line under the value saying what is counted. */
  hint?: string;
}

/** The row of four summary cards at the top of both analytics screens. */
export function StatCardGrid({ cards, label }: { cards: StatCard[]; label: string }) {
  return (
    <dl aria-label={label} className="grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-4">
      {cards.map((card) => (
        <div key={card.label} className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200" data-testid={`stat-${card.label}`}>
          <dt className="truncate text-sm font-medium text-gray-500">{card.label}</dt>
          <dd className="mt-1 text-3xl font-semibold tracking-tight text-gray-900">{card.value}</dd>
          {card.hint ? <dd className="mt-1 text-xs text-gray-500">{card.hint}</dd> : null}
        </div>
      ))}
    </dl>
  );
}
