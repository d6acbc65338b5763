// The operator's daily money, in the analytics charts' style: what callers paid, platform fees and
// model cost as bars, creators' net as a line (it goes below zero when model cost exceeds prices).
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { type chartPoints, formatUsd } from '../lib/operator-format';

const dayTick = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function OperatorChart({ points }: { points: ReturnType<typeof chartPoints> }) {
  return (
    <section aria-label="Money per day" className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200">
      <h2 className="mb-4 text-lg font-semibold text-gray-900">Money per day</h2>
      <ResponsiveContainer width="100%" height={300} initialDimension={{ width: 600, height: 300 }}>
        <ComposedChart data={points}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
          <XAxis dataKey="date" tickFormatter={dayTick} tick={{ fontSize: 12 }} minTickGap={16} />
          <YAxis tick={{ fontSize: 12 }} width={64} tickFormatter={(value: number) => formatUsd(value)} />
          <Tooltip labelFormatter={(label) => dayTick(String(label))} formatter={(value, name) => [formatUsd(Number(value), 4), name]} />
          <Legend itemSorter={null} />
          <ReferenceLine y={0} stroke="#9ca3af" />
          <Bar dataKey="paid" name="Callers paid" fill="#4f46e5" isAnimationActive={false} />
          <Bar dataKey="fees" name="Platform fees" fill="#10b981" isAnimationActive={false} />
          <Bar dataKey="model_cost" name="Model cost" fill="#f59e0b" isAnimationActive={false} />
          <Line dataKey="net" name="Creators' net" type="monotone" stroke="#dc2626" dot={false} isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </section>
  );
}
