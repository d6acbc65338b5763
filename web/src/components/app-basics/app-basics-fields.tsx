// An application's basics (spec section 5): name, description, visibility and the price per call in
// dollars, in one component that the create, edit, builder and detail forms (prompt and
// workflow) all render with their own form state. The screens place the basics differently and
// put their own fields among them (type, status, slug, interaction mode, provider settings), so
// the component knows each screen's layout and takes those fields in named slots.
import type { Visibility } from '@tollbooth/contract';
import type { ReactNode } from 'react';
import { describedBy } from '@/components/ui/form-field';
import { DescriptionField, NameField, VisibilityField } from './basic-fields';
import { PriceField } from './price-field';

/** Where a form keeps the price, as typed in dollars. */
type PriceKey = 'price';

/** The basics part of a form's values. */
export type AppBasicsValues<P extends PriceKey> = { name: string; description: string; visibility: Visibility | '' } & Record<P, string>;

type BasicsKey<P extends PriceKey> = 'name' | 'description' | 'visibility' | P;

/** What the component needs of the form's state: the shape `useAppForm` returns, and the detail and builder forms build. */
export interface AppBasicsForm<P extends PriceKey, Values extends AppBasicsValues<P>> {
  values: Values;
  set: <K extends keyof Values>(name: K, value: Values[K]) => void;
  /** The id of a field's input; forms that focus their first invalid field look it up by the same name. */
  fieldId: (name: BasicsKey<P>) => string;
  errors?: Partial<Record<keyof Values, string>>;
}

interface PriceOptions<P extends PriceKey> {
  /** The form value holding the price. */
  key: P;
  label: string;
  /** Smallest accepted value, in dollars. */
  min: number;
  /** Shows a price below zero as $0.00 in the "per call" line. */
  clampDisplay?: boolean;
  /** A sentence after the price, e.g. how a change reaches callers. */
  note?: string;
  inputClassName?: string;
  outputTestId?: string;
}

/**
 * The screens, and where each puts the form's own fields:
 * - create: name, description, then `beforeVisibility` (type, interaction mode) beside the
 *   visibility, then `afterVisibility` (the provider settings), then the price; every input is named
 *   and the required ones say so.
 * - edit: name (focused: the form opens on the user's click), description, visibility beside the price.
 * - builder: name beside `besideName` (the slug), description, then `beforeVisibility` (status),
 *   visibility and price in one row.
 * - settings (the prompt and workflow detail pages): one two-column grid of name, `besideName`
 *   (status), description, `beforeVisibility` (interaction mode), visibility and price.
 */
type Layout =
  | { layout: 'create'; beforeVisibility?: ReactNode; afterVisibility?: ReactNode }
  | { layout: 'edit' }
  | { layout: 'builder' | 'settings'; besideName?: ReactNode; beforeVisibility?: ReactNode };

type AppBasicsFieldsProps<P extends PriceKey, Values extends AppBasicsValues<P>> = Layout & {
  form: AppBasicsForm<P, Values>;
  price: PriceOptions<P>;
  /** "Name" in the app forms, "Prompt Name" in the builder, "Application Name" on the detail pages. */
  nameLabel?: string;
  /** How the "embed" visibility reads: "Embed", or "Embeddable" in the builder. */
  embedLabel?: string;
  /** The create and edit forms' price form chooser (issue 60): shown, full width, instead of the price per call field. */
  pricePanel?: ReactNode;
};

/** The prompt and workflow detail pages' basics: the settings layout, named and priced alike. */
export const DETAIL_SETTINGS = {
  layout: 'settings',
  nameLabel: 'Application Name',
  price: { key: 'price', label: 'Price per Call (USD)', min: 0, clampDisplay: true },
} as const;

export function AppBasicsFields<P extends PriceKey, Values extends AppBasicsValues<P>>(props: AppBasicsFieldsProps<P, Values>) {
  const { form, price, nameLabel, embedLabel, layout } = props;
  const { values, fieldId } = form;
  const errors = (form.errors ?? {}) as Partial<Record<BasicsKey<P>, string>>;
  // Values extends the basics, so each basics key takes the basics' own type.
  const set = (name: BasicsKey<P>, value: string) => form.set(name as keyof Values, value as Values[keyof Values]);
  const validated = layout === 'create' || layout === 'edit';
  const named = layout === 'create';
  const htmlName = (name: BasicsKey<P>) => (named ? name : undefined);

  const nameField = (
    <NameField
      id={fieldId('name')}
      name={htmlName('name')}
      label={nameLabel}
      required={validated || undefined}
      autoFocus={layout === 'edit' || undefined}
      value={values.name}
      onChange={(value) => set('name', value)}
      error={errors.name}
    />
  );
  const descriptionField = (
    <DescriptionField
      id={fieldId('description')}
      name={htmlName('description')}
      className={layout === 'settings' ? 'sm:col-span-2' : undefined}
      value={values.description}
      onChange={(value) => set('description', value)}
      error={errors.description}
    />
  );
  const visibilityField = (
    <VisibilityField
      id={fieldId('visibility')}
      name={htmlName('visibility')}
      embedLabel={embedLabel}
      required={layout === 'create' || undefined}
      value={values.visibility}
      onChange={(value) => set('visibility', value)}
      error={errors.visibility}
      describedBy={describedBy(fieldId('visibility'), { error: errors.visibility })}
    />
  );
  const priceField = props.pricePanel ?? (
    <PriceField
      id={fieldId(price.key)}
      name={htmlName(price.key)}
      label={price.label}
      min={price.min}
      required={validated || undefined}
      clampDisplay={price.clampDisplay}
      note={price.note}
      inputClassName={price.inputClassName}
      outputTestId={price.outputTestId}
      value={values[price.key]}
      onChange={(value) => set(price.key, value)}
      error={errors[price.key]}
    />
  );

  switch (props.layout) {
    case 'create':
      return (
        <>
          {nameField}
          {descriptionField}
          <div className="grid grid-cols-1 gap-6 sm:grid-cols-2">
            {props.beforeVisibility}
            {visibilityField}
          </div>
          {props.afterVisibility}
          {priceField}
        </>
      );
    case 'edit':
      return (
        <>
          {nameField}
          {descriptionField}
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            {visibilityField}
            {props.pricePanel ? null : priceField}
          </div>
          {props.pricePanel ? priceField : null}
        </>
      );
    case 'builder':
      return (
        <>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            {nameField}
            {props.besideName}
          </div>
          {descriptionField}
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-3">
            {props.beforeVisibility}
            {visibilityField}
            {priceField}
          </div>
        </>
      );
    case 'settings':
      return (
        <div className="grid max-w-3xl grid-cols-1 gap-5 sm:grid-cols-2">
          {nameField}
          {props.besideName}
          {descriptionField}
          {props.beforeVisibility}
          {visibilityField}
          {priceField}
        </div>
      );
  }
}
