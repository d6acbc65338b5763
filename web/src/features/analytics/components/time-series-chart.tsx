// One chart of an analytics screen, drawn with Recharts from a ChartDefinition (chart.utils.ts):
// an area, bar or line chart keyed by date, height 300, in a titled card.
import type { ReactElement } from 'react';
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDayLabel, formatDayTick, formatRevenue, formatSeconds } from '../lib/analytics-format.utils';
import { CHART_HEIGHT, type ChartDefinition } from '../lib/chart.utils';

function formatValue(definition: ChartDefinition, value: unknown): string {
  const number = typeof value === 'number' ? value : Number(value);
  if (definition.unit === 'seconds') return formatSeconds(number, 3);
  if (definition.unit === 'dollars') return formatRevenue(number);
  return number.toLocaleString('en-US');
}

export function TimeSeriesChart<Point extends { date: string }>({ definition, data }: { definition: ChartDefinition; data: Point[] }) {
  const axes = [
    <CartesianGrid key="grid" strokeDasharray="3 3" stroke="#e5e7eb" />,
    <XAxis key="x" dataKey="date" tickFormatter={formatDayTick} tick={{ fontSize: 12 }} minTickGap={16} />,
    <YAxis key="y" tick={{ fontSize: 12 }} width={56} allowDecimals={definition.unit !== undefined} />,
    <Tooltip key="tooltip" labelFormatter={(label) => formatDayLabel(String(label))} formatter={(value, name) => [formatValue(definition, value), name]} />,
    <Legend key="legend" itemSorter={null} />,
  ];
  let chart: ReactElement;
  if (definition.kind === 'bar') {
    chart = (
      <BarChart data={data}>
        {axes}
        {definition.series.map((series) => (
          <Bar key={series.dataKey} dataKey={series.dataKey} name={series.name} fill={series.color} stackId={series.stackId} isAnimationActive={false} />
        ))}
      </BarChart>
    );
  } else if (definition.kind === 'line') {
    chart = (
      <LineChart data={data}>
        {axes}
        {definition.series.map((series) => (
          <Line key={series.dataKey} type="monotone" dataKey={series.dataKey} name={series.name} stroke={series.color} dot={false} isAnimationActive={false} />
        ))}
      </LineChart>
    );
  } else {
    chart = (
      <AreaChart data={data}>
        {axes}
        {definition.series.map((series) => (
          <Area
            key={series.dataKey}
            type="monotone"
            dataKey={series.dataKey}
            name={series.name}
            stroke={series.color}
            fill={series.color}
            fillOpacity={0.3}
            stackId={series.stackId}
            isAnimationActive={false}
          />
        ))}
      </AreaChart>
    );
  }
  return (
    <section aria-label={definition.title} className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200" data-chart-kind={definition.kind}>
      <h2 className="mb-4 text-lg font-semibold text-gray-900">{definition.title}</h2>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 600, height: CHART_HEIGHT }}>
        {chart}
      </ResponsiveContainer>
    </section>
  );
}
